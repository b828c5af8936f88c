// Builds the study widget into one self-contained HTML file (scripts and
// styles inline, no external origin): `make widget` copies dist/index.html
// to ../widget.html, which the surface embeds. The output must be the same
// bytes on every machine (`make check-widget`), so nothing here may depend
// on the time, the path or the environment.
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";

export default defineConfig({
  base: "./",
  logLevel: "warn",
  plugins: [viteSingleFile({ removeViteModuleLoader: true })],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
    sourcemap: false,
  },
});
