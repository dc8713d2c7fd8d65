/**
 * The text a node is read aloud from, and its pieces: eSpeak NG takes a whole text at once, so
 * a long article is synthesized in pieces (each one a short, cancellable step) and the pieces'
 * audio joined. Pieces end at a sentence end where one is near, else at a space, else hard.
 */

/** Characters per synthesized piece: about 20 s of speech. */
export const SPEECH_PIECE_CHARS = 400;

/** The most text one job reads aloud (about 2 hours of speech); longer text is cut there. */
export const SPEECH_MAX_CHARS = 200_000;

export function speechTextOf(node: { title: string | null; content: string | null }): string {
  const parts = [node.title, node.content].map((part) => (part ?? '').replace(/\s+/g, ' ').trim()).filter((part) => part !== '');
  // A title usually has no full stop; without one eSpeak runs it into the first sentence.
  const text = parts.map((part, i) => (i < parts.length - 1 && !/[.!?:]$/.test(part) ? `${part}.` : part)).join(' ');
  return text.slice(0, SPEECH_MAX_CHARS);
}

export function splitForSpeech(text: string, maxChars = SPEECH_PIECE_CHARS): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars + 1);
    // One backward scan each (linear): the last sentence end in the window's second half, else its last space.
    let cut = lastIndexOfAny(window, '.!?;', Math.floor(maxChars / 2));
    if (cut >= 0) cut += 1;
    else {
      cut = window.lastIndexOf(' ');
      if (cut <= 0) cut = maxChars;
    }
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

function lastIndexOfAny(text: string, chars: string, from: number): number {
  for (let i = text.length - 1; i >= from; i--) {
    if (chars.includes(text[i]!) && (i + 1 >= text.length || text[i + 1] === ' ')) return i;
  }
  return -1;
}
