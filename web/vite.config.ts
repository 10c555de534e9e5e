import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/**
 * The web UI build (`vite build web`): static files in web/dist, served by the service at `/`.
 * Kept apart from the root vitest.config.ts on purpose: vitest finds no tests when the root config
 * sets `root: 'web'`.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One small bundle: no source maps shipped, no modulepreload polyfill (inline scripts and CSP).
    sourcemap: false,
    modulePreload: { polyfill: false },
  },
  logLevel: 'warn',
});
