#!/usr/bin/env node
// The file npm links as `inntak`. It is committed (npm links a workspace's bin only if the file
// exists at install time, and dist/ is built later); it loads the build, or says how to make it.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stdout.write(`${JSON.stringify({ error: 'inntak er ikke bygget ennå: kjør `npm run build` (eller `npm start`) i repositoriet først' })}\n`);
  process.exit(1);
}
await import(main.href);
