import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The CLI runs from its build (npm test builds first), as a user would run it.
export const CLI = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/**
 * Runs the built CLI with these arguments and this environment, writing `stdin` to it if given:
 * its exit code, the JSON it printed on stdout, and its stderr. Output that is not JSON fails.
 */
export function runCli<J = Record<string, unknown>>(args: readonly string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<{ code: number | null; json: J; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        resolve({ code, json: JSON.parse(out) as J, stderr: err });
      } catch {
        reject(new Error(`not JSON on stdout: ${out} ${err}`));
      }
    });
    if (stdin !== undefined) child.stdin.end(stdin);
  });
}
