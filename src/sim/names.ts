/**
 * Word lists for plausible names, titles and texts. Drawn with the world's Rng, so they
 * are part of the deterministic world.
 */
import type { Rng } from './rng.js';

const FIRST = [
  'Ada',
  'Ben',
  'Chloé',
  'Dario',
  'Elif',
  'Femi',
  'Greta',
  'Hiro',
  'Ines',
  'Jonas',
  'Kira',
  'Luca',
  'Mara',
  'Noor',
  'Oskar',
  'Priya',
  'Quentin',
  'Rosa',
  'Sami',
  'Tove',
  'Uma',
  'Viktor',
  'Wen',
  'Yara',
  'Zeno',
];
const LAST = [
  'Abara',
  'Berg',
  'Costa',
  'Dubois',
  'Eriksen',
  'Fischer',
  'García',
  'Haddad',
  'Ito',
  'Jansen',
  'Kowalski',
  'Lindqvist',
  'Moreau',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Rossi',
  'Schmidt',
  'Tanaka',
  'Vargas',
  'Weber',
];
const ADJECTIVES = [
  'Morning',
  'Late',
  'Open',
  'Deep',
  'Quiet',
  'Weekly',
  'Daily',
  'Friday',
  'Northern',
  'Urban',
  'Digital',
  'Green',
  'Local',
  'Global',
  'Midnight',
  'Sunday',
  'Rapid',
  'Slow',
];
const NOUNS = [
  'Brief',
  'Desk',
  'Forum',
  'Lab',
  'Notes',
  'Circle',
  'Studio',
  'Room',
  'Hour',
  'Talk',
  'Signals',
  'Review',
  'Roundtable',
  'Dispatch',
  'Session',
  'Wire',
  'Club',
  'Office Hours',
];
const TOPICS = [
  'product roadmap',
  'community Q&A',
  'market update',
  'release notes',
  'design critique',
  'city council recap',
  'science news',
  'book club',
  'hiring update',
  'incident review',
  'AI in practice',
  'open source',
  'music picks',
  'customer stories',
  'quarterly results',
  'health tips',
  'travel diaries',
  'football talk',
];
const QUESTIONS = [
  'Can you repeat the last point?',
  'When will this be available?',
  'How does this compare to last year?',
  'Is there a recording afterwards?',
  'What tools do you use for this?',
  'Any advice for beginners?',
  'Will the slides be shared?',
  'How big is the team?',
  'What was the hardest part?',
  'Where can I read more?',
  'Does this work offline?',
  'What is next on the list?',
];
const ANNOUNCEMENTS = [
  'Welcome everyone, we start in a minute.',
  'Questions are open now.',
  'Short break, back in five.',
  'Thanks for joining, the recording follows.',
  'Our guest has joined the stage.',
  'Last call for questions.',
];

/** A person's full name. */
export function personName(rng: Rng): string {
  return `${rng.pick(FIRST)} ${rng.pick(LAST)}`;
}

/** An email address for a name in an org's domain. */
export function emailFor(name: string, org: string, n: number): string {
  const local = name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '.');
  return `${local}.${n}@${org}.example`;
}

/** A channel name. */
export function channelName(rng: Rng): string {
  return `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`;
}

/** A session title. */
export function sessionTitle(rng: Rng): string {
  const topic = rng.pick(TOPICS);
  return `${topic.charAt(0).toUpperCase()}${topic.slice(1)} #${rng.int(1, 250)}`;
}

/** A listener's question. */
export function questionText(rng: Rng): string {
  return rng.pick(QUESTIONS);
}

/** A host's announcement. */
export function announcementText(rng: Rng): string {
  return rng.pick(ANNOUNCEMENTS);
}

/** A listener's handle. */
export function listenerHandle(rng: Rng): string {
  return `${rng.pick(FIRST).toLowerCase()}${rng.int(1, 999)}`;
}

/** A readable org name from its slug (`acme-radio` → `Acme Radio`). */
export function orgNameFromSlug(slug: string): string {
  return slug
    .split('-')
    .filter((w) => w.length > 0)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}
