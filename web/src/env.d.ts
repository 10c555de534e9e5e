/** Vite turns CSS imports into a stylesheet link; TypeScript only needs to know they exist. */
declare module '*.css';
