// Stands in for file-saver, which only browsers use.
export function saveAs() {
  throw new Error("saveAs is a browser download; the harness writes files itself");
}
