// css.d.ts: esbuild bundles the stylesheet imported by main.tsx; TypeScript only needs to know the import exists.
declare module '*.css';
