import type { Response } from 'express';
import { z } from 'zod';
import { AppError } from '@inntak/core';
import { html, type Html, type HtmlValue } from '@inntak/publishing';
import { errorResponse } from '../errors.js';
import { sendPage } from './studio-html.js';

/**
 * The console's forms (issue 39, point 5): a refused form comes back as the same page with 400
 * (or the use case's 409/413/422), the posted values kept, each bad field named in plain
 * Norwegian beside the field and in a summary at the top that links to it. Usage:
 *
 *   router.post('/x', (req, res) => handleForm(res, valuesOf(req.body), (state) => page(state), async () => {
 *     const body = parseForm(Schema, { ...fields }, LABELS);   // FormRejected on bad input
 *     await theUseCase(store, caller, body);                    // an AppError 4xx shows on the form
 *     res.redirect(303, '/studio/…?ok=…');
 *   }));
 *
 * and in the page: `errorSummary(state)`, then `field(state, { name, label, type, … })` per control.
 * 401/403/404 stay whole pages (studio.ts): the person may not be here, so there is no form to keep.
 */
export interface FormState {
  /** What was posted, shown again in the fields (never a secret: `field` leaves password fields empty). */
  values: Record<string, string>;
  /** field name → what is wrong, in plain Norwegian. */
  errors: Record<string, string>;
  /** A refusal that names no field (e.g. `Finnes allerede`), shown above the form. */
  problem?: string;
}

export const EMPTY_FORM: FormState = { values: {}, errors: {} };

/** A bad form: the state to render it again with. Never leaves studio-forms' handleForm. */
export class FormRejected extends Error {
  constructor(readonly state: FormState) {
    super('form rejected');
  }
}

/** The posted fields as strings (urlencoded bodies are strings; arrays keep their first value). */
export function valuesOf(body: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  if (!body || typeof body !== 'object') return values;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && key !== 'csrf') values[key] = first;
  }
  return values;
}

/**
 * Parses form input with the API's own zod schema (the same rules as the route), but reports
 * every bad field at once in words a person reads. `labels` names each field as the form does.
 */
export function parseForm<S extends z.ZodType>(schema: S, input: Record<string, unknown>, labels: Record<string, string>, values: Record<string, string> = stringsOf(input)): z.output<S> {
  // reportInput: the issue carries what was typed, so an empty field and a wrong one read apart.
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const name = String(issue.path[0] ?? (issue.code === 'unrecognized_keys' ? issue.keys[0] : '') ?? '');
    if (!errors[name]) errors[name] = plainMessage(issue, labels[name] ?? 'Feltet');
  }
  throw new FormRejected({ values, errors });
}

function stringsOf(input: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => typeof v === 'string' || typeof v === 'number').map(([k, v]) => [k, String(v)]));
}

/** A zod issue as a sentence about the field, e.g. «Tittel» kan ha høyst 300 tegn. */
export function plainMessage(issue: z.core.$ZodIssue, label: string): string {
  const name = `«${label}»`;
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined || issue.input === null || issue.input === '' ? `${name} må fylles ut.` : issue.expected === 'number' ? `${name} må være et tall.` : issue.expected === 'int' ? `${name} må være et heltall.` : `${name} har feil form.`;
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? `${name} må fylles ut.` : `${name} må ha minst ${issue.minimum} tegn.`;
      if (issue.origin === 'number') return `${name} må være minst ${issue.minimum}.`;
      return `${name} har for få verdier.`;
    case 'too_big':
      if (issue.origin === 'string') return `${name} kan ha høyst ${issue.maximum} tegn.`;
      if (issue.origin === 'number') return `${name} kan være høyst ${issue.maximum}.`;
      return `${name} har for mange verdier.`;
    case 'invalid_format':
      if (issue.format === 'uuid' || issue.format === 'guid') return `${name} må være en id (UUID) – velg fra listen.`;
      if (issue.format === 'url') return `${name} må være en nettadresse som begynner med https://.`;
      if (issue.format === 'email') return `${name} må være en e-postadresse.`;
      return `${name} har ugyldige tegn eller feil form.`;
    case 'invalid_value':
      return `${name} må være ett av valgene.`;
    case 'unrecognized_keys':
      return `${name} hører ikke hjemme i skjemaet.`;
    default:
      return `${name} er ugyldig: ${issue.message}`;
  }
}

/**
 * Runs a form's action. A FormRejected or a use case's 4xx (other than 401/403/404) answers the
 * page again with the error on it and the values kept; anything else goes on to studio.ts.
 */
export async function handleForm(res: Response, values: Record<string, string>, render: (state: FormState) => Html | Promise<Html>, submit: () => Promise<void>): Promise<void> {
  let state: FormState;
  let status = 400;
  try {
    await submit();
    return;
  } catch (thrown) {
    if (thrown instanceof FormRejected) state = thrown.state;
    else if (thrown instanceof AppError && ![401, 403, 404].includes(errorResponse(thrown).status) && errorResponse(thrown).status < 500) {
      const answer = errorResponse(thrown);
      status = answer.status;
      state = { values, errors: {}, problem: answer.body.error };
    } else throw thrown;
  }
  sendPage(res, status, await render(state));
}

export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'number' | 'url' | 'email' | 'password' | 'search' | 'datetime-local' | 'textarea' | 'select' | 'checkbox';
  /** The id in the page (default the name); give one when a page repeats the form. */
  id?: string;
  required?: boolean;
  hint?: HtmlValue;
  /** The value when nothing was posted. */
  value?: string;
  options?: Array<{ value: string; label: string }>;
  min?: number;
  max?: number;
  maxlength?: number;
  rows?: number;
  autocomplete?: string;
}

/** One labelled control with its hint and error, tied together with aria-describedby. */
export function field(state: FormState, options: FieldOptions): Html {
  const id = options.id ?? options.name;
  const error = state.errors[options.name];
  const posted = state.values[options.name];
  const value = options.type === 'password' ? '' : (posted ?? options.value ?? '');
  const described = [options.hint ? `${id}-hjelp` : '', error ? `${id}-feil` : ''].filter(Boolean).join(' ');
  // A select always has a value: `required` on it would need an empty first option (HTML's rule), so only its label says it.
  const common = html`id="${id}" name="${options.name}"${options.required && options.type !== 'select' ? html` required` : ''}${error ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}`;
  let control: Html;
  if (options.type === 'textarea') {
    control = html`<textarea ${common} rows="${options.rows ?? 4}"${options.maxlength ? html` maxlength="${options.maxlength}"` : ''}>${value}</textarea>`;
  } else if (options.type === 'select') {
    control = html`<select ${common}>${(options.options ?? []).map((o) => html`<option value="${o.value}"${o.value === value ? html` selected` : ''}>${o.label}</option>`)}</select>`;
  } else if (options.type === 'checkbox') {
    const checked = posted !== undefined ? posted === 'on' : options.value === 'on';
    control = html`<input ${common} type="checkbox"${checked ? html` checked` : ''}>`;
  } else {
    const type = options.type ?? 'text';
    control = html`<input ${common} type="${type}" value="${value}"${options.min !== undefined ? html` min="${options.min}"` : ''}${options.max !== undefined ? html` max="${options.max}"` : ''}${options.maxlength ? html` maxlength="${options.maxlength}"` : ''}${html` autocomplete="${options.autocomplete ?? (type === 'password' ? 'new-password' : 'off')}"`}${type === 'number' ? html` inputmode="numeric"` : ''}>`;
  }
  return html`<div class="field${error ? ' invalid' : ''}"><label for="${id}">${options.label}${options.required ? '' : html` <span class="optional">(valgfri)</span>`}</label>
${options.hint ? html`<p class="hint" id="${id}-hjelp">${options.hint}</p>` : ''}${error ? html`<p class="field-error" id="${id}-feil">${error}</p>` : ''}${control}</div>`;
}

/** Above a refused form: what went wrong, each bad field a link to it (focus goes there). */
export function errorSummary(state: FormState, ids: Record<string, string> = {}): Html {
  const entries = Object.entries(state.errors);
  if (!entries.length && !state.problem) return html``;
  return html`<div class="error" role="alert" tabindex="-1"><p><strong>${state.problem ?? (entries.length === 1 ? 'Skjemaet har en feil:' : `Skjemaet har ${entries.length} feil:`)}</strong></p>
${entries.length ? html`<ul>${entries.map(([name, message]) => html`<li><a href="#${ids[name] ?? name}">${message}</a></li>`)}</ul>` : ''}</div>`;
}
