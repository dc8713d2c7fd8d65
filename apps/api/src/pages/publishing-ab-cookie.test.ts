import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { AbClientGate } from '@inntak/ab-testing';
import { sharedKey } from '@inntak/postgres/graph';
import { PostgresImpressionStore } from '@inntak/postgres/publishing';
import { ClientKeys } from './public-clients.js';
import { abEvents, app, article, ctx, owner, post, publication, recorder, setupPublishingScene } from '../__tests__/publishing-scene.js';

// The visitor cookie (inntak_ab) picks the variants a reader sees, and a reader's first counted
// view counts the variant shown: a cookie the client chooses decided what was counted
// (docs/security.md, "Fifth attack (issue 35)", finding 7).

setupPublishingScene();

async function abTest() {
  const pub = await publication();
  const id = await article(pub.id, 'Skjev sak');
  const variant = async (title: string) => (await post('/intentions/create_variant', owner, { publication_id: pub.id, article_id: id, variant_type: 'headline', title })).body.edge_id as string;
  return { pub, id, a: await variant('Variant A'), b: await variant('Variant B') };
}

/** The variant the page shows for the article: its /t link names it. */
function shown(page: string, articleId: string, a: string, b: string): string {
  const href = new RegExp(`href="([^"]*/t/${articleId}[^"]*)"`).exec(page)?.[1] ?? '';
  return href.includes(a) ? a : href.includes(b) ? b : '';
}

function randomId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return Array.from({ length: 22 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
}

describe('the visitor cookie cannot choose what is counted', () => {
  it('cookies picked (by prefetches that count nothing) to show variant A, sent by 160 readers, do not tip the count: both variants get their share', async () => {
    const { pub, id, a, b } = await abTest();
    // The attacker tries cookies with prefetches (not counted) and keeps five that show A.
    const chosen: string[] = [];
    for (let i = 0; i < 200 && chosen.length < 5; i++) {
      const tried = `inntak_ab=${randomId()}`;
      const page = await request(app).get(`/pub/${pub.slug}`).set('Purpose', 'prefetch').set('User-Agent', 'skrape/1.0').set('Cookie', tried);
      const given = page.headers['set-cookie']?.[0]?.split(';')[0];
      if (shown(page.text, id, a, b) === a) chosen.push(given ?? tried);
    }
    expect(chosen).toHaveLength(5);
    // 160 readers (other User-Agents) view the front page with those cookies.
    for (let i = 0; i < 160; i++) {
      const page = await request(app).get(`/pub/${pub.slug}`).set('User-Agent', `leser-${i}`).set('Cookie', chosen[i % chosen.length]!);
      expect(page.status).toBe(200);
    }
    await recorder.flush();
    const [ca, cb] = [await abEvents(a), await abEvents(b)];
    expect(ca.impressions + cb.impressions).toBe(160);
    // A fair split is 80 each; below 40 is six standard deviations away.
    expect(Math.min(ca.impressions, cb.impressions)).toBeGreaterThanOrEqual(40);
  });

  it('a reader keeps the cookie the server made for them, and the variant with it', async () => {
    const { pub, id, a, b } = await abTest();
    const first = await request(app).get(`/pub/${pub.slug}`).set('User-Agent', 'trofast');
    const cookie = first.headers['set-cookie']![0]!.split(';')[0]!;
    const variant = shown(first.text, id, a, b);
    for (let i = 0; i < 10; i++) {
      const again = await request(app).get(`/pub/${pub.slug}`).set('User-Agent', 'trofast').set('Cookie', cookie);
      expect(again.headers['set-cookie']).toBeUndefined();
      expect(shown(again.text, id, a, b)).toBe(variant);
    }
  });

  it('a cookie one API process made is honoured by another: the key is the database’s (server_secrets), not the process’s', async () => {
    const { pub, id, a, b } = await abTest();
    const processes = [0, 1].map(() => ctx.app({ publishing: { recorder, ownHost: 'inntak.test', visitorKey: sharedKey(ctx.database.db, 'ab_visitor') } }));
    const first = await request(processes[0]!).get(`/pub/${pub.slug}`).set('User-Agent', 'vandrer');
    const cookie = first.headers['set-cookie']![0]!.split(';')[0]!;
    const other = await request(processes[1]!).get(`/pub/${pub.slug}`).set('User-Agent', 'vandrer').set('Cookie', cookie);
    expect(other.headers['set-cookie']).toBeUndefined();
    expect(shown(other.text, id, a, b)).toBe(shown(first.text, id, a, b));
  });
});

describe('three API processes count A/B impressions and clicks as one (issue 38)', () => {
  /** An API process's A/B state: nothing of it is shared but the database. */
  function process() {
    const db = ctx.database.db;
    return ctx.app({
      publishing: {
        recorder,
        ownHost: 'inntak.test',
        visitorKey: sharedKey(db, 'ab_visitor'),
        clients: new ClientKeys(sharedKey(db, 'ab_client')),
        abGate: new AbClientGate({ store: new PostgresImpressionStore(db), key: sharedKey(db, 'ab_impression') }),
      },
    });
  }

  it('a click landing on another process than its impression counts: 6 of 6', async () => {
    const { pub, id, a, b } = await abTest();
    const fleet = [process(), process(), process()];
    for (let i = 0; i < 6; i++) {
      const page = await request(fleet[i % 3]!).get(`/pub/${pub.slug}`).set('User-Agent', `klikker-${i}`);
      const href = new RegExp(`href="[^"]*(/t/${id}[^"]*)"`).exec(page.text)![1]!.replace(/&amp;/g, '&');
      const click = await request(fleet[(i + 1) % 3]!).get(`/pub/${pub.slug}${href}`).set('User-Agent', `klikker-${i}`);
      expect(click.status).toBe(302);
    }
    await recorder.flush();
    const [ca, cb] = [await abEvents(a), await abEvents(b)];
    expect({ impressions: ca.impressions + cb.impressions, clicks: ca.clicks + cb.clicks }).toEqual({ impressions: 6, clicks: 6 });
  });

  it('one browser reloading through three processes counts one impression, and its second click nothing', async () => {
    const { pub, id, a, b } = await abTest();
    const fleet = [process(), process(), process()];
    let cookie: string | undefined;
    let href = '';
    for (let i = 0; i < 3; i++) {
      const page = await request(fleet[i]!).get(`/pub/${pub.slug}`).set('User-Agent', 'omlaster').set('Cookie', cookie ?? '');
      cookie ??= page.headers['set-cookie']![0]!.split(';')[0]!;
      href = new RegExp(`href="[^"]*(/t/${id}[^"]*)"`).exec(page.text)![1]!.replace(/&amp;/g, '&');
    }
    for (const process of fleet) await request(process).get(`/pub/${pub.slug}${href}`).set('User-Agent', 'omlaster');
    await recorder.flush();
    const [ca, cb] = [await abEvents(a), await abEvents(b)];
    expect({ impressions: ca.impressions + cb.impressions, clicks: ca.clicks + cb.clicks }).toEqual({ impressions: 1, clicks: 1 });
  });
});
