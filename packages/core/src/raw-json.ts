/**
 * JSON text that is already serialized (a large payload, prepared off the main thread), to be
 * spliced into a document as is instead of being parsed and serialized again. `stringifyJson`
 * splices it when it is a direct value of an object; anything else that serializes it (plain
 * JSON.stringify) still gets the right document through `toJSON`, only slower.
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** JSON.stringify, except that RawJson values of a top-level object are spliced in unparsed. */
export function stringifyJson(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).some((v) => v instanceof RawJson)) {
    return JSON.stringify(value);
  }
  // `+` keeps a large text as one piece of a rope; join() would copy it once more.
  let out = '';
  for (const [key, item] of Object.entries(value)) {
    const text = item instanceof RawJson ? item.text : JSON.stringify(item);
    if (text !== undefined) out = out + (out === '' ? '{' : ',') + JSON.stringify(key) + ':' + text;
  }
  return out === '' ? '{}' : out + '}';
}
