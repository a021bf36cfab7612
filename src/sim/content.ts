/**
 * Sub-resources of a session (questions, announcements, reactions, speakers), built on
 * first need. A session generated at start (history, or live already) draws what it held
 * before the start from its own seed and its fixed times, so 100 000 sessions cost little
 * at start and the content is the same whenever it is first read.
 */
import type { Dynamics } from './dynamics.js';
import { REACTION_KINDS, type SessionContent, type SimSession } from './model.js';
import { announcementText, listenerHandle, personName, questionText } from './names.js';
import { deriveSeed, Rng } from './rng.js';

/** What drawing a generated session's content depends on. */
export interface ContentSource {
  seed: number;
  /** Simulated start: content generated for a session covers its time before this. */
  start: number;
  dyn: Dynamics;
}

/** Empty sub-resources. */
export function emptyContent(): SessionContent {
  return {
    questions: [],
    announcements: [],
    reactions: {},
    reactionsTotal: 0,
    speakers: [],
    nextQuestion: 1,
    nextAnnouncement: 1,
    nextSpeaker: 1,
  };
}

/** The session's sub-resources, drawn the first time they are needed. */
export function contentOf(s: SimSession, src: ContentSource): SessionContent {
  if (s.content === null) s.content = s.seeded ? drawContent(s, src) : emptyContent();
  return s.content;
}

function drawContent(s: SimSession, src: ContentSource): SessionContent {
  const c = emptyContent();
  if (s.startedAt === null) return c;
  const { dyn } = src;
  const rng = new Rng(deriveSeed(src.seed, 'content', s.ord));
  const from = s.startedAt;
  const to = Math.max(from, Math.min(s.endedAt ?? src.start, src.start));
  const span = Math.max(1000, to - from);
  const scaled = (every: number, cap: number) =>
    Math.min(cap, Math.round(((to - from) / every) * rng.between(0.3, 1.5)));
  const times = (n: number) =>
    Array.from({ length: n }, () => from + Math.floor(rng.next() * span)).sort((a, b) => a - b);
  const speakers = rng.int(1, 4);
  for (let i = 0; i < speakers; i++) {
    c.speakers.push({
      id: `${s.id}-spk${c.nextSpeaker++}`,
      name: personName(rng),
      joinedAt: from + i * 1000,
    });
  }
  for (const at of times(scaled(dyn.questionEvery, 300))) {
    c.questions.push({
      id: `${s.id}-q${c.nextQuestion++}`,
      text: questionText(rng),
      author: listenerHandle(rng),
      askedAt: at,
    });
  }
  for (const at of times(scaled(dyn.announcementEvery, 20))) {
    c.announcements.push({
      id: `${s.id}-a${c.nextAnnouncement++}`,
      text: announcementText(rng),
      postedAt: at,
    });
  }
  const bursts = scaled(dyn.reactionEvery, 2000);
  for (let i = 0; i < bursts; i++) {
    const kind = rng.pick(REACTION_KINDS);
    const n = rng.int(1, dyn.reactionBurst);
    c.reactions[kind] = (c.reactions[kind] ?? 0) + n;
    c.reactionsTotal += n;
  }
  return c;
}
