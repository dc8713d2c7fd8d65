import { execFile } from 'node:child_process';
import { z } from 'zod';
import { commandAllowed, hostAllowed, RetryableActionError, type ActionInputs, type JsonObject } from '@inntak/orchestration';

/** http_post and run_cli_tool hand back at most this much of a body, stdout or stderr. */
export const OUTPUT_LIMIT_BYTES = 4096;
export const HTTP_TIMEOUT_MS = 10_000;

/**
 * POSTs JSON to a host on ORCHESTRATION_HTTP_ALLOW. Redirects are not followed (a redirect could
 * lead off the list); the status and the first 4 KB of the body are the output, and a body that
 * is complete JSON is also given parsed as `json`.
 */
export async function httpPost(input: ActionInputs['http_post'], allow: readonly string[], signal: AbortSignal, timeoutMs = HTTP_TIMEOUT_MS): Promise<JsonObject> {
  const url = new URL(input.url);
  if (!hostAllowed(url, allow)) throw new Error(`http_post: verten ${url.host} er ikke tillatt (ORCHESTRATION_HTTP_ALLOW)`);
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { ...input.headers, 'content-type': 'application/json' },
      body: JSON.stringify(input.body ?? {}),
      redirect: 'manual',
      signal: AbortSignal.any([signal, timeout]),
    });
  } catch (error) {
    // A timeout or no connection is worth a step's `retry`; the run being stopped is not.
    if (timeout.aborted) throw new RetryableActionError(`http_post: ${url.host} svarte ikke innen ${timeoutMs / 1000} s`, { cause: error });
    if (signal.aborted) throw new Error(`http_post: ${(error as Error).message}`, { cause: error });
    throw new RetryableActionError(`http_post: ${(error as Error).message}`, { cause: error });
  }
  const { text, truncated } = await readLimited(response.body, OUTPUT_LIMIT_BYTES);
  const output: JsonObject = { status: response.status, body: text, truncated };
  if (!truncated) {
    try {
      output.json = JSON.parse(text) as unknown;
    } catch {
      // Not JSON: the text alone is the output.
    }
  }
  // A 5xx may pass (retry), a 4xx will not.
  const ErrorType = response.status >= 500 ? RetryableActionError : Error;
  if (response.status >= 400) throw new ErrorType(`http_post: ${url.host} svarte ${response.status}: ${text.slice(0, 200)}`);
  return output;
}

async function readLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<{ text: string; truncated: boolean }> {
  if (!body) return { text: '', truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
  }
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  // A cut inside a multi-byte character becomes U+FFFD rather than failing.
  return { text: new TextDecoder().decode(bytes), truncated };
}

/** A cli_tool node's metadata: the command (on ORCHESTRATION_CLI_ALLOW), fixed arguments, its timeout. */
const CliTool = z.object({
  command: z.string().min(1).max(500),
  args: z.array(z.string().max(10_000)).max(100).default([]),
  timeout_seconds: z.number().positive().max(600).default(30),
});

/** The environment a tool gets: a PATH, nothing of the worker's (its database URL stays here). */
const TOOL_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' };

/**
 * Runs a registered tool with execFile (never a shell: arguments are passed as they are). Its
 * output is exit code, stdout and stderr (each at most 4 KB); a non-zero exit or the timeout is a
 * failure of the step.
 */
export async function runCliTool(metadata: JsonObject, extraArgs: readonly string[], allow: readonly string[], signal: AbortSignal): Promise<JsonObject> {
  const parsed = CliTool.safeParse(metadata);
  if (!parsed.success) throw new Error(`run_cli_tool: verktøyets metadata er ugyldig: ${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`);
  const tool = parsed.data;
  if (!commandAllowed(tool.command, allow)) throw new Error(`run_cli_tool: kommandoen ${tool.command} er ikke tillatt (ORCHESTRATION_CLI_ALLOW)`);
  const timeoutMs = Math.round(tool.timeout_seconds * 1000);
  return new Promise((resolve, reject) => {
    execFile(
      tool.command,
      [...tool.args, ...extraArgs],
      { shell: false, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, signal, env: TOOL_ENV, encoding: 'buffer' },
      (error, stdout, stderr) => {
        const out = { stdout: limited(stdout), stderr: limited(stderr) };
        if (!error) {
          resolve({ exit_code: 0, ...out });
          return;
        }
        const failure = error as NodeJS.ErrnoException & { killed?: boolean; code?: number | string; signal?: string };
        if (failure.killed && failure.signal === 'SIGKILL' && !signal.aborted) {
          reject(new Error(`run_cli_tool: ${tool.command} ble stoppet etter ${tool.timeout_seconds} s (tidsgrense)`));
        } else if (typeof failure.code === 'number') {
          reject(new Error(`run_cli_tool: ${tool.command} avsluttet med kode ${failure.code}: ${out.stderr.slice(0, 500)}`));
        } else {
          reject(new Error(`run_cli_tool: ${tool.command}: ${failure.message}`));
        }
      },
    );
  });
}

function limited(output: Buffer | string): string {
  const bytes = typeof output === 'string' ? Buffer.from(output) : output;
  return new TextDecoder().decode(bytes.subarray(0, OUTPUT_LIMIT_BYTES));
}
