import type { PageLanguage } from './models.js';

/** The words the pages themselves say (navigation, empty lists, notes), per publication language. */
export interface Chrome {
  archive: string;
  about: string;
  search: string;
  searchWords: string;
  pages: string;
  newer: string;
  older: string;
  page: (n: number) => string;
  noArticles: string;
  noTagged: string;
  archiveEmpty: string;
  noHits: string;
  topics: string;
  topic: (tag: string) => string;
  searchFor: (q: string) => string;
  aboutTitle: (title: string) => string;
  noAbout: string;
  truncated: string;
  tooManyTitle: string;
  tooManyText: string;
  home: string;
  notFoundTitle: string;
  notFoundText: string;
  feed: string;
  listen: string;
  untitled: string;
}

export const CHROME: Readonly<Record<PageLanguage, Chrome>> = {
  nb: {
    archive: 'Arkiv',
    about: 'Om',
    search: 'Søk',
    searchWords: 'Søkeord',
    pages: 'Sider',
    newer: '← Nyere',
    older: 'Eldre →',
    page: (n) => `Side ${n}`,
    noArticles: 'Ingen artikler ennå.',
    noTagged: 'Ingen artikler med dette emnet.',
    archiveEmpty: 'Arkivet er tomt.',
    noHits: 'Ingen treff.',
    topics: 'Emner',
    topic: (tag) => `Emne: ${tag}`,
    searchFor: (q) => `Søk: ${q}`,
    aboutTitle: (title) => `Om ${title}`,
    noAbout: 'Ingen beskrivelse ennå.',
    truncated: 'Artikkelen er forkortet: den er for lang til å vises i sin helhet her.',
    tooManyTitle: 'For mange søk',
    tooManyText: 'Det kommer for mange søk akkurat nå. Prøv igjen om litt.',
    home: 'Til forsiden',
    notFoundTitle: 'Siden finnes ikke',
    notFoundText: 'Vi fant ikke siden du så etter.',
    feed: 'Nyhetsstrøm (RSS)',
    listen: 'Lytt',
    untitled: 'Uten tittel',
  },
  en: {
    archive: 'Archive',
    about: 'About',
    search: 'Search',
    searchWords: 'Search words',
    pages: 'Pages',
    newer: '← Newer',
    older: 'Older →',
    page: (n) => `Page ${n}`,
    noArticles: 'No articles yet.',
    noTagged: 'No articles with this topic.',
    archiveEmpty: 'The archive is empty.',
    noHits: 'No results.',
    topics: 'Topics',
    topic: (tag) => `Topic: ${tag}`,
    searchFor: (q) => `Search: ${q}`,
    aboutTitle: (title) => `About ${title}`,
    noAbout: 'No description yet.',
    truncated: 'This article is shortened: it is too long to show in full here.',
    tooManyTitle: 'Too many searches',
    tooManyText: 'There are too many searches right now. Please try again shortly.',
    home: 'To the front page',
    notFoundTitle: 'Page not found',
    notFoundText: 'We could not find the page you were looking for.',
    feed: 'News feed (RSS)',
    listen: 'Listen',
    untitled: 'Untitled',
  },
};
