// `npm run test:e2e` is the browser run: without its browser it stops before it starts anything,
// with the one line that says what is missing, rather than failing every test in turn.
import { engineUnavailable } from '@inntak/test-support';
import globalSetup from '../global-setup.js';

export default async function e2eGlobalSetup() {
  const unavailable = engineUnavailable('chromium');
  if (unavailable) {
    const error = new Error(`npm run test:e2e needs a browser: ${unavailable}`);
    error.stack = error.message; // the line is the whole story; a stack into jest adds nothing
    throw error;
  }
  await globalSetup();
}
