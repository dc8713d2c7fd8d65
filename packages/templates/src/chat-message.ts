import { at, fields, firstStr, isFields, list, num, str, textAt, type Fields } from './field-access.js';
import { header } from './forge-sender.js';
import { extraMetadata, result, unsupportedEvent, type MetadataBase } from './template-result.js';
import { emoji, escapeMd, slackMarkdown } from './markdown.js';
import { excerpt, factLines, firstLine, nameList, oneLine } from './text-format.js';
import type { Headers, Template, TemplateResult } from './types.js';
import { t, type Locale } from './locale.js';

export const CHAT_MESSAGE_VERSION = 3;
const MAX_TEXT = 4000;

type ChatSender = 'slack' | 'mattermost' | 'rocketchat' | 'flock' | 'teams' | 'google-chat' | 'zulip' | 'telegram' | 'unknown';

const CHAT_NAMES: Readonly<Record<ChatSender, string>> = {
  slack: 'Slack',
  mattermost: 'Mattermost',
  rocketchat: 'Rocket.Chat',
  flock: 'Flock',
  teams: 'Microsoft Teams',
  'google-chat': 'Google Chat',
  zulip: 'Zulip',
  telegram: 'Telegram',
  unknown: 'Chat',
};

interface Message {
  sender: ChatSender;
  event: string;
  channel?: string;
  channelId?: string;
  user?: string;
  userId?: string;
  /** Readable plain text (Slack markup resolved), for the title. */
  text: string;
  /** The sender's text as it came, turned into Markdown for the content by `markdownOf`. */
  raw?: string;
  thread?: string;
  edited: boolean;
  deleted: boolean;
  bot: boolean;
  subtype?: string;
  ts?: string;
  team?: string;
  /** Titles (or names) of files shared with the message: Slack `file_share`. */
  files?: string[];
}

export const chatMessage: Template = {
  id: 'chat-message',
  title: 'Chat message',
  description:
    'Chat messages: channel, user and readable text (Slack markup resolved), threads and edits marked. Answers Slack url_verification.',
  senders: ['Slack Events API', 'Slack/Mattermost/Rocket.Chat outgoing webhooks', 'Flock', 'Microsoft Teams', 'Google Chat', 'Zulip', 'Telegram'],
  render(payload: unknown, headers: Headers, locale: Locale = 'en'): TemplateResult {
    const p = fields(payload);
    const slackType = str(p.type);
    if (slackType === 'url_verification') return urlVerification(p, locale);
    if (slackType === 'event_callback' || isFields(p.event)) return slackEvent(p, headers, locale);
    return renderMessage(otherChat(p), baseFor(chatSenderOf(p), 'message', locale));
  },
};

function baseFor(sender: ChatSender, event: string, locale: Locale): MetadataBase {
  return { template: 'chat-message', template_version: CHAT_MESSAGE_VERSION, sender, event, locale };
}

/** A Slack message's shared files by title, else name; a file the app may not see has neither. */
function fileNames(value: unknown): string[] {
  const names: string[] = [];
  for (const f of list(value).slice(0, 100)) {
    const name = firstStr(at(f, 'title'), at(f, 'name'));
    if (name !== undefined) names.push(name);
  }
  return names;
}

/** Slack will not enable the URL unless the 200 response echoes `challenge`. */
function urlVerification(p: Fields, locale: Locale): TemplateResult {
  const challenge = str(p.challenge);
  const res = result(
    'Slack URL verification handshake',
    'Slack asked to verify this webhook URL for its Events API; the challenge was answered in the response.',
    extraMetadata(baseFor('slack', 'url_verification', locale), {}),
  );
  return challenge === undefined ? res : { ...res, reply: { challenge } };
}

const MESSAGE_EVENTS = new Set(['message', 'app_mention']);

function slackEvent(p: Fields, headers: Headers, locale: Locale): TemplateResult {
  const event = fields(p.event);
  const type = str(event.type) ?? str(p.type) ?? 'event_callback';
  const base = baseFor('slack', type, locale);
  if (!MESSAGE_EVENTS.has(type)) {
    return unsupportedEvent({ template: base.template, template_version: base.template_version, sender: 'slack', event: type, locale }, 'Slack', {
      repository: undefined,
      actor: firstStr(event.user, at(event, 'item_user')),
      payload: event,
    });
  }
  const subtype = str(event.subtype);
  // An edit carries the new message inside `message`; a deletion only the previous one.
  const inner = subtype === 'message_changed' ? fields(event.message) : subtype === 'message_deleted' ? fields(event.previous_message) : event;
  const ts = firstStr(inner.ts, event.ts);
  const threadTs = str(inner.thread_ts);
  const userId = firstStr(inner.user, inner.bot_id);
  const retry = header(headers, 'x-slack-retry-num');
  const message: Message = {
    sender: 'slack',
    event: type,
    channel: str(event.channel),
    channelId: str(event.channel),
    user: firstStr(
      at(inner, 'user_profile', 'display_name'),
      at(inner, 'user_profile', 'real_name'),
      at(inner, 'user_profile', 'name'),
      at(inner, 'bot_profile', 'name'),
      inner.username,
      userId,
    ),
    userId,
    text: slackText(firstStr(inner.text) ?? attachmentText(inner.attachments) ?? ''),
    raw: firstStr(inner.text) ?? attachmentText(inner.attachments) ?? '',
    thread: threadTs !== undefined && threadTs !== ts ? threadTs : undefined,
    edited: subtype === 'message_changed' || isFields(inner.edited),
    deleted: subtype === 'message_deleted',
    bot: inner.bot_id !== undefined || subtype === 'bot_message',
    subtype,
    ts,
    team: firstStr(p.team_id, event.team),
    files: fileNames(inner.files),
  };
  const rendered = renderMessage(message, base);
  if (retry !== undefined) rendered.extra_metadata.retry = num(retry) ?? retry;
  return rendered;
}

function attachmentText(attachments: unknown): string | undefined {
  for (const a of list(attachments)) {
    const text = firstStr(at(a, 'text'), at(a, 'pretext'), at(a, 'title'), at(a, 'fallback'));
    if (text !== undefined) return text;
  }
  return undefined;
}

const ENTITIES: Readonly<Record<string, string>> = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };

/**
 * Slack's markup made readable: <@U1> → @U1, <#C1|general> → #general, <!here> → @here,
 * <url|label> → label (url), and the three entities Slack escapes.
 */
export function slackText(text: string): string {
  return text
    .slice(0, MAX_TEXT * 2)
    .replace(/<([^<>]*)>/g, (_match, inner: string) => {
      const bar = inner.indexOf('|');
      const target = bar === -1 ? inner : inner.slice(0, bar);
      const label = bar === -1 ? undefined : inner.slice(bar + 1);
      if (target.startsWith('@')) return label ? `@${label.replace(/^@/, '')}` : target;
      if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
      if (target.startsWith('!subteam^')) return label ?? `@${target.slice(9)}`;
      if (target.startsWith('!')) return label ?? `@${target.slice(1).split('^')[0]}`;
      return label && label !== target ? `${label} (${target})` : target;
    })
    .replace(/&(lt|gt|amp);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** Outgoing webhooks and bot updates that name a channel, a user and a text. */
function chatSenderOf(p: Fields): ChatSender {
  if (p.post_id !== undefined) return 'mattermost';
  if (p.message_id !== undefined && (p.siteUrl !== undefined || p.bot !== undefined || p.channel_name !== undefined)) return 'rocketchat';
  if (p.team_domain !== undefined || p.service_id !== undefined || p.response_url !== undefined) return 'slack';
  if (p.update_id !== undefined && isFields(p.message ?? p.channel_post ?? p.edited_message)) return 'telegram';
  if (isFields(p.message) && at(p, 'message', 'display_recipient') !== undefined) return 'zulip';
  if (isFields(p.message) && isFields(p.space)) return 'google-chat';
  if (isFields(p.channelData) || (p.serviceUrl !== undefined && isFields(p.from))) return 'teams';
  if (typeof p.from === 'string' && typeof p.to === 'string') return 'flock';
  return 'unknown';
}

function otherChat(p: Fields): Message {
  const sender = chatSenderOf(p);
  const common = { sender, event: 'message', edited: false, deleted: false, bot: false } as const;
  switch (sender) {
    case 'telegram': {
      const m = fields(p.message ?? p.channel_post ?? p.edited_message);
      const chat = fields(m.chat);
      const from = fields(m.from);
      const name = [str(from.first_name), str(from.last_name)].filter((s) => s !== undefined).join(' ');
      return Object.assign({}, common, {
        channel: firstStr(chat.title, chat.username, chat.id),
        channelId: str(chat.id),
        user: firstStr(from.username, name, from.id),
        userId: str(from.id),
        text: firstStr(m.text, m.caption) ?? '',
        thread: str(m.message_thread_id),
        edited: isFields(p.edited_message),
        bot: from.is_bot === true,
        ts: str(m.message_id),
      });
    }
    case 'zulip': {
      const m = fields(p.message);
      const recipient = m.display_recipient;
      const stream = typeof recipient === 'string' ? str(recipient) : undefined;
      return Object.assign({}, common, {
        channel: stream ? `${stream}${str(m.subject) ? ` > ${str(m.subject)}` : ''}` : 'direct message',
        user: firstStr(m.sender_full_name, m.sender_email, m.sender_id),
        userId: str(m.sender_id),
        text: firstStr(m.content, p.data) ?? '',
        ts: str(m.id),
      });
    }
    case 'google-chat': {
      const m = fields(p.message);
      return Object.assign({}, common, {
        channel: firstStr(at(p, 'space', 'displayName'), at(p, 'space', 'name'), at(m, 'space', 'name')),
        user: firstStr(at(m, 'sender', 'displayName'), at(p, 'user', 'displayName'), at(m, 'sender', 'name')),
        text: firstStr(m.argumentText, m.text) ?? '',
        thread: textAt(m, 'thread', 'name'),
        ts: str(m.name),
      });
    }
    case 'teams':
      return Object.assign({}, common, {
        channel: firstStr(at(p, 'channelData', 'channel', 'name'), at(p, 'conversation', 'name'), at(p, 'channelData', 'channel', 'id'), at(p, 'conversation', 'id')),
        user: firstStr(at(p, 'from', 'name'), at(p, 'from', 'id')),
        userId: textAt(p, 'from', 'id'),
        text: teamsText(str(p.text) ?? ''),
        thread: str(p.replyToId),
        ts: str(p.id),
      });
    case 'flock':
      return Object.assign({}, common, { channel: str(p.to), channelId: str(p.to), user: str(p.from), userId: str(p.from), text: str(p.text) ?? '', ts: firstStr(p.id, p.uid) });
    default: {
      // Slack/Mattermost/Rocket.Chat outgoing webhooks share these names; others are guessed.
      const channel = firstStr(p.channel_name, p.channel, at(p, 'channel', 'name'), p.room, p.conversation, p.to, p.channel_id);
      const user = firstStr(p.user_name, p.username, at(p, 'user', 'name'), p.user, p.from, at(p, 'sender', 'name'), p.sender, p.author, p.user_id);
      const text = firstStr(p.text, p.message, p.content, p.body) ?? '';
      return Object.assign({}, common, {
        channel,
        channelId: str(p.channel_id),
        user,
        userId: str(p.user_id),
        text: sender === 'slack' ? slackText(text) : text,
        raw: text,
        thread: firstStr(p.thread_ts, p.tmid, p.root_id),
        edited: p.isEdited === true,
        bot: p.bot === true,
        ts: firstStr(p.timestamp, p.post_id, p.message_id),
        team: firstStr(p.team_domain, p.team_id),
      });
    }
  }
}

/** Teams wraps mentions in <at>…</at> and sends HTML; keep the words. */
function teamsText(html: string): string {
  return html
    .slice(0, MAX_TEXT * 2)
    .replace(/<at>([^<]*)<\/at>/g, '@$1')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<[^<>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&(lt|gt|amp);/g, (entity) => ENTITIES[entity] ?? entity);
}

function renderMessage(m: Message, base: MetadataBase): TemplateResult {
  const locale = base.locale ?? 'en';
  const name = CHAT_NAMES[m.sender];
  const channel = m.channel ? (/^[#@]/.test(m.channel) || m.sender !== 'slack' ? m.channel : `#${m.channel}`) : undefined;
  const marks = [m.thread ? 'thread reply' : undefined, m.edited ? 'edited' : undefined, m.deleted ? 'deleted' : undefined]
    .filter((s) => s !== undefined)
    .map((s) => t(locale, s))
    .join(', ');
  const files = m.files ?? [];
  const shared = files.length === 0 ? undefined : `shared ${files.length === 1 ? 'a file' : `${files.length} files`}: ${nameList(files, 5)}`;
  const summary =
    m.text.trim() !== '' ? firstLine(emoji(m.text.slice(0, MAX_TEXT)), 140) : m.deleted ? t(locale, '(message deleted)') : (shared ?? t(locale, '(no text)'));
  const title =
    `[${name}${channel ? ` ${oneLine(channel, 60)}` : ''}] ${m.user ? oneLine(m.user, 60) : t(locale, 'someone')}` +
    `${marks ? ` (${marks})` : ''}: ${summary}`;
  const facts = factLines(
    [
    ['Channel', channel],
    ['User', m.user && m.userId && m.user !== m.userId ? `${m.user} (${m.userId})` : m.user],
    ['Thread', m.thread ? t(locale, 'reply in thread {thread}', { thread: m.thread }) : undefined],
    ['Edited', m.edited ? t(locale, 'yes') : undefined],
    ['Deleted', m.deleted ? t(locale, 'yes') : undefined],
    ['Bot', m.bot ? t(locale, 'yes') : undefined],
    ['Files', nameList(files)],
  ],
    locale,
  );
  const body = m.text.trim() === '' ? '' : markdownOf(m.sender, excerpt(m.raw ?? m.text, MAX_TEXT));
  const metadata = extraMetadata(base, {
    channel: m.channelId ?? m.channel,
    user: m.userId ?? m.user,
    user_name: m.user !== m.userId ? m.user : undefined,
    thread: m.thread,
    edited: m.edited || undefined,
    deleted: m.deleted || undefined,
    bot: m.bot || undefined,
    subtype: m.subtype,
    files: files.length > 0 ? files.slice(0, 50) : undefined,
    ts: m.ts,
    team: m.team,
  });
  return result(title, [facts.join('\n'), body].filter((s) => s !== '').join('\n\n'), metadata);
}

/** Senders whose text is Markdown already (Zulip, Mattermost, Rocket.Chat, Google Chat's Slack-like markup aside). */
const MARKDOWN_SENDERS = new Set<ChatSender>(['zulip', 'mattermost', 'rocketchat']);

/** The message text as Markdown: Slack's markup converted, Markdown kept, plain text escaped; `:emoji:` shown. */
function markdownOf(sender: ChatSender, text: string): string {
  if (sender === 'slack' || sender === 'google-chat') return slackMarkdown(text);
  return emoji(MARKDOWN_SENDERS.has(sender) ? text : escapeMd(text));
}
