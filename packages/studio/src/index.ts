// The console at /studio (issue 26): sessions and CSRF tokens over the StudioSessionStore port,
// the console's own bounded reads (StudioReads), A/B test views and server-drawn SVG charts.
// Every write the console makes goes through the other packages' use cases.
export type { StudioSessionStore, StoredSession, StoredLogin, StudioReads, PublicationEntry, ArticleEntry, VariantEntry, VariantHour, OrchestrationEntry, WritableCollection, FailingWebhook } from './ports.js';
export { MAX_PENDING_LOGINS } from './ports.js';
export type { CollectionReads, CollectionEntry, MemberEntry, PersonEntry } from './collection-reads.js';
export { randomToken, tokenHash, csrfMatches, startSession, resumeSession, endSession, type StartedSession } from './sessions.js';
export { testViewOf, loneViews, cumulativeCtr, formatPercent, liftInWords, estimateInWords, uncountedInWords, ADDRESS_CAP_SHARE_NOTICE, LOW_DATA_IMPRESSIONS, LOW_DATA_CLICKS, type TestView, type VariantResult, type CtrSeries } from './ab-results.js';
export { lineChart, CHART_CSS, type ChartSeries } from './svg-chart.js';
export { whatNeedsAttention, ATTENTION, type Attention, type AttentionDeps, type WaitingTest } from './attention.js';
