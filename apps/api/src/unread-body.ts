import type { Request, Response } from 'express';

/**
 * How long a connection whose request body was refused unread is kept half-closed after the
 * answer, discarding what the client still sends, before it is ended outright.
 */
export const LINGER_MS = 2000;

/**
 * Answers a request whose body is refused before or while it is read with `Connection: close`,
 * and closes that connection the way a refusal can still be read (issue 35, finding 10).
 *
 * Draining a body nobody wants (up to 2 GB of video) is not worth it, but closing a socket with
 * unread bytes makes the kernel answer the client's next segment with a reset, which can
 * discard the 413 before the client reads it. So after the answer the connection is half-closed
 * (FIN), what still arrives is read and dropped, and the socket ends when the client closes its
 * side or after LINGER_MS, whichever comes first.
 */
export function closeUnreadBody(req: Request, res: Response): void {
  res.setHeader('Connection', 'close');
  const socket = req.socket;
  res.once('finish', () => {
    // Node's own handler ran first (socket.destroySoon: end, then destroy once the FIN is out);
    // keep the end, drop the destroy.
    socket.removeListener('finish', socket.destroy);
    if (socket.destroyed) return;
    // Unpiped or abandoned by its reader, the request would stop the socket once its buffer
    // fills: let whatever arrives flow away.
    req.unpipe();
    req.resume();
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('end', () => socket.destroy());
    socket.once('close', () => clearTimeout(timer));
  });
}
