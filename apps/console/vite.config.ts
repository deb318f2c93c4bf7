import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { firstLoadReport } from "./first-load";

/** The edge serves the build at /console; `npm run console:dev` proxies the API to a running `npm start`. */
export default defineConfig({
  root: import.meta.dirname,
  base: "/console/",
  plugins: [react(), firstLoadReport()],
  build: { outDir: "dist", emptyOutDir: true, reportCompressedSize: true },
  server: {
    proxy: { "/graphql": { target: "http://127.0.0.1:4000", ws: true } },
  },
});
