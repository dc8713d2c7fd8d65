import type { EventType, EventVariables, JsonObject } from './types.js';

/**
 * `{path}` variables inside the strings of an action's input. A dot separates the segments, so
 * the pattern cannot backtrack: every match attempt starts at a `{` and ends at the first
 * character outside it (linear in the text).
 */
const VARIABLE = /\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\}/g;
const WHOLE_VARIABLE = /^\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\}$/;

export class VariableError extends Error {}

/** The variables a string refers to, in order. */
export function variablesIn(text: string): string[] {
  return [...text.matchAll(VARIABLE)].map((m) => m[1]!);
}

/** Where a variable is used, for checking it before the script is saved. */
export interface VariableScope {
  /** 1-based number of the step using it; for the global fallback, the number of steps + 1. */
  step: number;
  /** In a step's fallback or the global fallback, where `{error}` exists. */
  inFallback: boolean;
  /** The trigger's event, when known: `{event.*}` is checked against it. */
  event?: EventType;
  /** In a step with for_each: `{item}` and `{index}` exist. */
  inLoop?: boolean;
  /** In http_post's headers: `{secrets.NAME}` may stand there. */
  secrets?: boolean;
}

/** The `{event.<root>}` each event has; `true`: the root is a value itself (fields optional). */
const EVENT_ROOTS: Record<EventType, Record<string, boolean>> = {
  'node.created': { node: false },
  'node.updated': { node: false, changes: true },
  'edge.created': { edge: false, source: false, target: false },
  manual: { input: true },
  schedule: { scheduled_at: true },
};

/** Why a variable can never resolve where it stands, or null when it may. */
export function checkVariable(path: string, scope: VariableScope): string | null {
  const [root, ...rest] = path.split('.');
  if (root === 'error') {
    if (rest.length > 0) return `{${path}}: {error} har ingen felter`;
    return scope.inFallback ? null : `{error} finnes bare i en fallback`;
  }
  if (root === 'item' || root === 'index') {
    if (!scope.inLoop) return `{${path}}: {item} og {index} finnes bare i et steg med for_each`;
    return root === 'index' && rest.length > 0 ? `{${path}}: {index} har ingen felter` : null;
  }
  if (root === 'secrets') {
    if (!scope.secrets) return `{${path}}: {secrets.<navn>} står bare i headers til http_post`;
    return rest.length === 1 && /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(rest[0]!) ? null : `{${path}}: forventet {secrets.<navn>}`;
  }
  if (root === 'event') {
    const [part, ...fields] = rest;
    if (part === 'type' && fields.length === 0) return null;
    const roots: Record<string, boolean> = scope.event ? EVENT_ROOTS[scope.event] : Object.assign({}, ...Object.values(EVENT_ROOTS));
    if (part === undefined || !Object.hasOwn(roots, part) || (fields.length === 0 && !roots[part])) {
      return `{${path}}: forventet {event.type} eller {event.${Object.keys(roots).join('|')}…}${scope.event ? ` for ${scope.event}` : ''}`;
    }
    return null;
  }
  if (root === 'steps') {
    const [n, output, ...fields] = rest;
    const number = Number(n);
    if (!/^[1-9][0-9]*$/.test(n ?? '') || output !== 'output' || fields.length === 0) return `{${path}}: forventet {steps.<n>.output.<felt>}`;
    if (number >= scope.step) return `{${path}}: steg ${number} har ikke kjørt ennå her`;
    return null;
  }
  return `{${path}}: ukjent variabel (forventet event, steps, error, item eller secrets)`;
}

/** What the variables of a running step can see. */
export interface VariableContext {
  event: EventVariables;
  /** Outputs of the steps that succeeded so far, by 1-based number. */
  outputs: Map<number, JsonObject>;
  error?: string;
  /** In a for_each step: the element and its 0-based index. */
  item?: unknown;
  index?: number;
  /** The orchestration's secrets by name (http_post headers only). */
  secrets?: ReadonlyMap<string, string>;
}

/**
 * Replaces the variables in an action's input. A string that is one variable takes the value
 * as it is (a number stays a number); inside longer text a value is written as text (objects as
 * JSON). A variable that does not resolve, or resolves to null, throws: it is the step's
 * failure, never an empty string.
 */
export function resolveVariables(value: unknown, context: VariableContext): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_VARIABLE.exec(value);
    if (whole) return lookupVariable(whole[1]!, context);
    return value.replace(VARIABLE, (_match, path: string) => {
      const found = lookupVariable(path, context);
      return typeof found === 'string' ? found : JSON.stringify(found);
    });
  }
  if (Array.isArray(value)) return value.map((item) => resolveVariables(item, context));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveVariables(item, context)]));
  }
  return value;
}

/**
 * An http_post URL with its variables filled in, each percent-encoded as one URL component
 * (encodeURIComponent, and `.` too): a value cannot add a path segment, a query or a fragment.
 * Nor can values make a `.` or `..` segment (the URL parser resolves `%2E` like `.`).
 */
export function resolveUrl(template: string, context: VariableContext): string {
  const filled = template.replace(VARIABLE, (_match, path: string) => {
    const found = lookupVariable(path, context);
    return encodeURIComponent(typeof found === 'string' ? found : JSON.stringify(found)).replaceAll('.', '%2E');
  });
  if (dotSegments(filled) !== dotSegments(template.replace(VARIABLE, 'x'))) {
    throw new VariableError('Variablene i url gir stisegmentet . eller .., som ville endre stien');
  }
  return filled;
}

/** How many `.` and `..` segments the path of a URL string has, as the URL parser would see them. */
function dotSegments(url: string): number {
  const path = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '').split(/[?#]/)[0]!;
  return path.split(/[/\\]/).filter((segment) => /^(?:\.|%2e){1,2}$/i.test(segment)).length;
}

/** A variable's value; throws VariableError when it does not resolve or is null. */
export function lookupVariable(path: string, context: VariableContext): unknown {
  const segments = path.split('.');
  let current: unknown;
  let fields: string[];
  if (segments[0] === 'error') {
    current = context.error;
    fields = segments.slice(1);
  } else if (segments[0] === 'steps') {
    current = context.outputs.get(Number(segments[1]));
    if (segments[2] !== 'output') current = undefined;
    fields = segments.slice(3);
  } else if (segments[0] === 'item' || segments[0] === 'index') {
    current = context[segments[0]];
    fields = segments.slice(1);
  } else if (segments[0] === 'secrets') {
    current = context.secrets?.get(segments[1] ?? '');
    fields = segments.slice(2);
  } else if (segments[0] === 'event') {
    current = context.event;
    fields = segments.slice(1);
  } else {
    throw new VariableError(`Variabelen {${path}} finnes ikke`);
  }
  for (const field of fields) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, field)) {
      throw new VariableError(`Variabelen {${path}} finnes ikke`);
    }
    current = (current as Record<string, unknown>)[field];
  }
  if (current === undefined || current === null) throw new VariableError(`Variabelen {${path}} har ingen verdi`);
  return current;
}
