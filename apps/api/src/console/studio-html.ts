import { createHash } from 'node:crypto';
import type { Response } from 'express';
import type { Caller } from '@inntak/access';
import { html, Html, type HtmlValue } from '@inntak/publishing';
import { CHART_CSS } from '@inntak/studio';

/**
 * The console's pages: server-rendered, Norwegian, escaped through the publishing pages' `html`
 * template (packages/publishing/src/html.ts). Readable at 390 px (one column, wrapping tables),
 * usable with the keyboard (a skip link, real links and buttons, visible focus), a label on
 * every control. The one script (copy buttons, times in the browser's zone) only adds to what
 * works without it.
 */
export interface StudioView {
  caller?: Caller;
  /** The logged-in person's display name (their person node's title), for the header. */
  name?: string;
  csrf?: string;
}

const STYLE = `*{box-sizing:border-box}
body{font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1a1a1a;background:#fdfdfc}
header,main{max-width:60rem;margin:0 auto;padding:0 1rem}
header{border-bottom:1px solid #ccc;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding-top:.5rem;padding-bottom:.5rem}
header .site{font-weight:700;font-size:1.2rem;color:inherit;text-decoration:none}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
a{color:#0b5cad}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
.vh,.skip{position:absolute;left:-999px;width:1px;height:1px;overflow:hidden}.skip:focus{width:auto;height:auto}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
table{border-collapse:collapse;width:100%}
.scroll{overflow-x:auto;max-width:100%}
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
form.inline{display:inline}
button,input,select,textarea{font:inherit;max-width:100%}
button{padding:.3rem .7rem;cursor:pointer}
label{display:block;margin:.5rem 0 .2rem}
.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
.row label{margin:0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f3f3f1;padding:.5rem;max-width:100%}
pre[tabindex]{max-height:30rem;overflow:auto}
code{word-break:break-all}
main{overflow-wrap:anywhere}table{overflow-wrap:normal}
.row>*{min-width:0;max-width:100%}
.who{margin-left:auto;display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:center}
.who .role{color:#555;font-size:.9rem}
.attention li{margin:.3rem 0}
.notice{border-left:4px solid #1e7b34;padding:.5rem 1rem;background:#eef7ef}
.error{border-left:4px solid #b3261e;padding:.5rem 1rem;background:#fbeceb}
.secret{font-family:monospace;font-size:1.1rem;word-break:break-all}
${CHART_CSS}
section{margin:1.5rem 0}
.field{margin:.5rem 0}.field.invalid{border-left:4px solid #b3261e;padding-left:.5rem}
.field-error{color:#b3261e;font-weight:600;margin:.2rem 0}.field-error,.error{overflow-wrap:anywhere}.hint{color:#555;margin:.2rem 0}.optional{font-weight:400;color:#555}
.field textarea,.field input[type=text],.field input[type=url],.field input[type=search]{width:100%}`;

/**
 * The console's one script, allowed by its hash (STUDIO_CSP): copy buttons, and every
 * `<time datetime>` rewritten to the browser's own time zone with its abbreviation ("28.11.2026
 * 10:30 CET"); the server writes UTC ("… 09:30 UTC", timeTag), which stays in the title.
 */
const CONSOLE_SCRIPT = `document.querySelectorAll('time[datetime]').forEach(function(t){var d=new Date(t.getAttribute('datetime'));if(isNaN(d))return;var p={};new Intl.DateTimeFormat('nb-NO',{day:'2-digit',month:'2-digit',year:'numeric',hour:'2-digit',minute:'2-digit',timeZoneName:'short'}).formatToParts(d).forEach(function(x){p[x.type]=x.value;});t.textContent=p.day+'.'+p.month+'.'+p.year+' '+p.hour+':'+p.minute+' '+p.timeZoneName;});
document.addEventListener('click',function(e){var b=e.target.closest('[data-copy]');if(!b)return;navigator.clipboard.writeText(document.getElementById(b.getAttribute('data-copy')).textContent).then(function(){b.textContent='Kopiert';});});`;

/**
 * The console's Content-Security-Policy. It shares an origin with the published pages and the
 * media files (issue 35, finding 8), so only its own script runs, allowed by its hash (no
 * 'unsafe-inline'), and forms post only here: the OpenID login starts with a link, not a form.
 * Styles stay inline (a style attribute or two); they cannot run anything.
 */
const STUDIO_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  `script-src 'sha256-${createHash('sha256').update(CONSOLE_SCRIPT).digest('base64')}'`,
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function layout(view: StudioView, title: string, body: Html): Html {
  const caller = view.caller;
  return html`<!doctype html>
<html lang="nb">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} – Inntak studio</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<a class="skip" href="#innhold">Hopp til innholdet</a>
<header>
<a class="site" href="/studio">Inntak studio</a>
${
  caller
    ? html`<nav aria-label="Hovedmeny"><ul>
<li><a href="/studio/publikasjoner">Publikasjoner</a></li>
<li><a href="/studio/webhooks">Webhooks</a></li>
<li><a href="/studio/orkestreringer">Orkestreringer</a></li>
<li><a href="/studio/samlinger">Samlinger</a></li>
${caller.isAdmin ? html`<li><a href="/studio/system">System</a></li>` : ''}
</ul></nav>
<div class="who"><span>Innlogget som <strong>${view.name ?? 'uten navn'}</strong>${caller.isAdmin ? html` <span class="role">(systemadministrator)</span>` : ''}</span>
<form class="inline" method="post" action="/studio/logout">${csrfField(view)}<button type="submit">Logg ut</button></form></div>`
    : ''
}
</header>
<main id="innhold">
<h1>${title}</h1>
${body}
</main>
<script>${new Html(CONSOLE_SCRIPT)}</script>
</body>
</html>
`;
}

export function csrfField(view: StudioView): Html {
  return view.csrf ? html`<input type="hidden" name="csrf" value="${view.csrf}">` : html``;
}

/** A one-button form (POST), with the CSRF field and hidden inputs. */
export function actionButton(view: StudioView, action: string, label: HtmlValue, hidden: Record<string, string> = {}): Html {
  return html`<form class="inline" method="post" action="${action}">${csrfField(view)}${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button type="submit">${label}</button></form>`;
}

export function sendPage(res: Response, status: number, page: Html): void {
  pageHeaders(res, status);
  res.send(page.toString());
}

/** A console page's headers (also for the streamed re-render page). */
export function pageHeaders(res: Response, status: number): void {
  res.status(status).type('html').setHeader('Cache-Control', 'no-store');
  // The pages embed no third-party anything: nothing else may load, frame or be posted to.
  res.setHeader('Content-Security-Policy', STUDIO_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
}

/** A moment in UTC, said so: "28.11.2026 09:30 UTC" (with `seconds`, "28.11.2026 09:30:15 UTC"). */
export function formatTime(at: Date | string, seconds = false): string {
  const iso = (typeof at === 'string' ? new Date(at) : at).toISOString();
  return `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)} ${iso.slice(11, seconds ? 19 : 16)} UTC`;
}

/**
 * Every time the console shows, in one place: UTC in the page (what logs and the API say), to
 * the second in the title; the console's script shows it in the browser's zone instead.
 */
export function timeTag(at: Date | string): Html {
  const date = typeof at === 'string' ? new Date(at) : at;
  return html`<time datetime="${date.toISOString()}" title="${formatTime(date, true)}">${formatTime(date)}</time>`;
}
