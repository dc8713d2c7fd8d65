import { describe, expect, it } from '@jest/globals';
import { chatMessage, slackText } from './chat-message.js';
import { expectFixtureRenderings, fixturesFor, renderFixture, type Expectation } from './__tests__/fixtures.js';

const render = (file: string, withHeaders = true) => renderFixture(chatMessage, file, withHeaders);

const EXPECTED: Expectation[] = [
  {
    file: 'slack-event_callback-message_plain.json',
    title: '[Slack #C06NRA6JLER] U06NU4E26M9: Hello, this is a normal text message',
    content: ['**Channel:** #C06NRA6JLER', '**User:** U06NU4E26M9', '\n\nHello, this is a normal text message'],
    metadata: { sender: 'slack', event: 'message', channel: 'C06NRA6JLER', user: 'U06NU4E26M9', ts: '1719209506.817929' },
  },
  {
    file: 'slack-event_callback-message_bot.json',
    title: '[Slack #C06NRA6JLER] export-bot: <Desdemona> koo',
    content: ['**User:** export-bot (U074G5E1ANR)', '**Bot:** yes', '\n\n<Desdemona> koo'],
    metadata: { user: 'U074G5E1ANR', user_name: 'export-bot', bot: true },
  },
  {
    file: 'slack-event_callback-message_subtype_bot_message.json',
    title: '[Slack #C06P6T3QGD7] ClickUp: *Task status changed* from `complete` to `to do`',
    content: ['**Channel:** #C06P6T3QGD7', '**User:** ClickUp (B06NWMNUQ3W)', '**Bot:** yes'],
    metadata: { channel: 'C06P6T3QGD7', user_name: 'ClickUp', bot: true, subtype: 'bot_message' },
  },
  {
    file: 'slack-url_verification-challenge.json',
    title: 'Slack URL verification handshake',
    content: ['challenge was answered'],
    metadata: { sender: 'slack', event: 'url_verification' },
  },
  {
    file: 'slack-event_callback-message_user_mentions.json',
    title: '[Slack #C06NRA6JLER] U06NU4E26M9: @U074VRHQ11T @U074G5E1ANR @U06NU4E26M9 hello, this is a message with mentions',
    content: ['**@U074VRHQ11T** **@U074G5E1ANR** **@U06NU4E26M9** hello'],
    metadata: { user: 'U06NU4E26M9' },
  },
  {
    file: 'slack-event_callback-message_channel_mentions.json',
    title: '[Slack #C06NRA6JLER] U06NU4E26M9: #zulip-mirror #general message with channel mentions',
    content: ['**#zulip-mirror** **#general** message with channel mentions'],
    metadata: { channel: 'C06NRA6JLER' },
  },
  {
    file: 'flock-message-plain.json',
    title: '[Flock g:183ff1e90d79465793273a31d7d1e537] u:9qehqo3ixo3t93e3: This is the welcome message!',
    content: ['**Channel:** g:183ff1e90d79465793273a31d7d1e537', '**User:** u:9qehqo3ixo3t93e3', 'This is the welcome message!'],
    metadata: { sender: 'flock', event: 'message', channel: 'g:183ff1e90d79465793273a31d7d1e537', user: 'u:9qehqo3ixo3t93e3' },
  },
];

describe('chat-message on the shared fixtures', () => {
  expectFixtureRenderings(chatMessage, EXPECTED);
  it("echoes Slack's challenge in the reply for url_verification", () => {
    expect(render('slack-url_verification-challenge.json').reply).toEqual({ challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
    expect(render('slack-event_callback-message_plain.json').reply).toBeUndefined();
  });

  it.each(fixturesFor('chat-message').filter((f) => typeof (f.payload as { token?: unknown }).token === 'string'))(
    "$file never echoes Slack's token",
    (f) => {
      const token = (f.payload as { token: string }).token;
      const r = chatMessage.render(f.payload, f.headers);
      expect(`${r.title}\n${r.content}\n${JSON.stringify(r.extra_metadata)}`).not.toContain(token);
    },
  );
});

describe('Slack markup made readable', () => {
  it.each([
    ['<@U1> hi', '@U1 hi'],
    ['<@U1|alice> hi', '@alice hi'],
    ['see <#C1|general>', 'see #general'],
    ['see <#C1>', 'see #C1'],
    ['<https://x.io|the docs>', 'the docs (https://x.io)'],
    ['<https://x.io>', 'https://x.io'],
    ['<!here> <!channel>', '@here @channel'],
    ['<!subteam^S1|@devs> ping', '@devs ping'],
    ['a &lt;b&gt; &amp;amp; c', 'a <b> &amp; c'],
  ])('%s → %s', (input, output) => {
    expect(slackText(input)).toBe(output);
  });
});

describe('chat-message beyond the fixtures', () => {
  const callback = (event: Record<string, unknown>) => ({ token: 'tok-secret', team_id: 'T1', type: 'event_callback', event: { type: 'message', channel: 'C9', ...event } });

  it('marks a thread reply', () => {
    const r = chatMessage.render(callback({ user: 'U1', text: 'reply', ts: '2.0', thread_ts: '1.0' }), {});
    expect(r.title).toBe('[Slack #C9] U1 (thread reply): reply');
    expect(r.content).toContain('**Thread:** reply in thread 1.0');
    expect(r.extra_metadata).toMatchObject({ thread: '1.0' });
  });

  it('marks an edit and shows the new text', () => {
    const r = chatMessage.render(
      callback({ subtype: 'message_changed', ts: '3.0', message: { user: 'U1', text: 'new <@U2>', edited: { user: 'U1', ts: '3.0' }, ts: '1.0' }, previous_message: { text: 'old' } }),
      {},
    );
    expect(r.title).toBe('[Slack #C9] U1 (edited): new @U2');
    expect(r.content).toContain('**Edited:** yes');
    expect(r.extra_metadata).toMatchObject({ edited: true, subtype: 'message_changed' });
  });

  it('marks a deletion', () => {
    const r = chatMessage.render(callback({ subtype: 'message_deleted', previous_message: { user: 'U1', text: 'gone', ts: '1.0' } }), {});
    expect(r.title).toBe('[Slack #C9] U1 (deleted): gone');
  });

  it('prefers the user profile name when Slack includes one', () => {
    const r = chatMessage.render(callback({ user: 'U1', text: 'hi', user_profile: { display_name: 'Ada', real_name: 'Ada L' } }), {});
    expect(r.title).toBe('[Slack #C9] Ada: hi');
    expect(r.content).toContain('**User:** Ada (U1)');
  });

  it('records a Slack retry from its header', () => {
    expect(chatMessage.render(callback({ user: 'U1', text: 'hi' }), { 'x-slack-retry-num': '2' }).extra_metadata.retry).toBe(2);
  });

  it('renders other Slack events as unsupported, with the event type', () => {
    const r = chatMessage.render({ type: 'event_callback', event: { type: 'reaction_added', user: 'U1', reaction: 'tada' } }, {});
    expect(r.unsupported_event).toBe('reaction_added');
    expect(r.title).toBe('Slack event `reaction_added` by U1');
  });

  it('renders a Mattermost outgoing webhook without its token', () => {
    const r = chatMessage.render(
      { token: 'mm-secret', team_domain: 'acme', channel_name: 'town-square', user_name: 'bob', text: 'deploy now', post_id: 'p1', trigger_word: 'deploy' },
      {},
    );
    expect(r.title).toBe('[Mattermost town-square] bob: deploy now');
    expect(JSON.stringify(r)).not.toContain('mm-secret');
    expect(r.extra_metadata).toMatchObject({ sender: 'mattermost', channel: 'town-square', user: 'bob' });
  });

  it('renders a Slack slash command / outgoing webhook form with markup resolved', () => {
    const r = chatMessage.render({ token: 'x', team_domain: 'acme', channel_name: 'ops', user_name: 'eve', text: 'ping <@U7>' }, {});
    expect(r.title).toBe('[Slack #ops] eve: ping @U7');
  });

  it('renders a Microsoft Teams outgoing webhook', () => {
    const r = chatMessage.render(
      { type: 'message', id: '1', text: '<at>Bot</at> status&nbsp;please', from: { id: '29:1', name: 'Kim' }, conversation: { id: '19:abc' }, channelData: { channel: { id: '19:abc' } } },
      {},
    );
    expect(r.title).toBe('[Microsoft Teams 19:abc] Kim: @Bot status please');
  });

  it('renders a Telegram bot update', () => {
    const r = chatMessage.render({ update_id: 1, message: { message_id: 5, text: 'hei', from: { id: 9, username: 'ola' }, chat: { id: -1, title: 'Gruppe' } } }, {});
    expect(r.title).toBe('[Telegram Gruppe] ola: hei');
  });

  it('shows unicode intact and never cuts a surrogate pair', () => {
    const r = chatMessage.render(callback({ user: 'U1', text: `${'a'.repeat(139)}😀😀😀` }), {});
    expect(r.title.endsWith('…')).toBe(true);
    expect(r.title).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
