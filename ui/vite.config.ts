import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The build is committed (ui/dist) and embedded in the binary. It must be
// reproducible (CI rebuilds it and compares) and satisfy the console's CSP:
// no inline script or style, no eval, everything from 'self'.
export default defineConfig({
  plugins: [svelte()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    cssCodeSplit: true,
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8080',
    },
  },
});
