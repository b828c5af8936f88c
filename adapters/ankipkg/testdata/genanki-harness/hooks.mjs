// Module hooks for loading genanki-js under Node: its dist/genanki.js is an
// ES module its package.json does not declare as one, and it imports
// file-saver (a browser download helper) by a named export Node cannot
// see; the harness writes the zip itself, so file-saver is never called.
export async function resolve(specifier, context, next) {
  if (specifier === "file-saver") {
    return { url: new URL("./no-saver.mjs", import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url.includes("/genanki-js/dist/genanki.js")) {
    return next(url, { ...context, format: "module" });
  }
  return next(url, context);
}
