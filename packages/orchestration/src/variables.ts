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
  /** In a step's own fallback, the step's output does not exist yet: only earlier ones do. */
  event?: EventType;
}

const NODE_EVENT_ROOTS = ['node'];
const EDGE_EVENT_ROOTS = ['edge', 'source', 'target'];

/** Why a variable can never resolve where it stands, or null when it may. */
export function checkVariable(path: string, scope: VariableScope): string | null {
  const [root, ...rest] = path.split('.');
  if (root === 'error') {
    if (rest.length > 0) return `{${path}}: {error} har ingen felter`;
    return scope.inFallback ? null : `{error} finnes bare i en fallback`;
  }
  if (root === 'event') {
    const [part, ...fields] = rest;
    if (part === 'type' && fields.length === 0) return null;
    const roots = scope.event === 'node.created' ? NODE_EVENT_ROOTS : scope.event === 'edge.created' ? EDGE_EVENT_ROOTS : [...NODE_EVENT_ROOTS, ...EDGE_EVENT_ROOTS];
    if (part === undefined || !roots.includes(part) || fields.length === 0) {
      return `{${path}}: forventet {event.type} eller {event.${roots.join('|')}.<felt>}${scope.event ? ` for ${scope.event}` : ''}`;
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
  return `{${path}}: ukjent variabel (forventet event, steps eller error)`;
}

/** What the variables of a running step can see. */
export interface VariableContext {
  event: EventVariables;
  /** Outputs of the steps that succeeded so far, by 1-based number. */
  outputs: Map<number, JsonObject>;
  error?: string;
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
    if (whole) return lookup(whole[1]!, context);
    return value.replace(VARIABLE, (_match, path: string) => {
      const found = lookup(path, context);
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
    const found = lookup(path, context);
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

function lookup(path: string, context: VariableContext): unknown {
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
