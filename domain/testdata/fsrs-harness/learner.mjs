// Test harness (not product): a learner simulated with ts-fsrs, independent
// of Takhtabush's scheduler, studying one deck every day.
//
//   node learner.mjs forecast < config.json > out.json
//
// The learner studies at 09:00 UTC (days start at 00:00 UTC): every review
// card due that day, then newPerDay new cards, then learning and
// relearning steps as they come due until none is left that day. A review
// card is recalled with ts-fsrs's forgetting curve (days counted between
// UTC dates, as ts-fsrs schedules) and rated hard/good/easy by recallMix,
// else again; a new card's first rating comes from firstMix. After
// historyDays of study it writes the deck as it stands ("cards"), then
// studies `days` more days and writes the reviews of each ("actual").
import { fsrs, generatorParameters, createEmptyCard, Rating, State } from 'ts-fsrs';

const DAY = 86400000;

// mulberry32: a small seeded generator.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick(r, probs, values) {
  const total = probs.reduce((a, b) => a + b, 0);
  let x = r() * total;
  for (let i = 0; i < probs.length; i++) {
    if (x < probs[i]) return values[i];
    x -= probs[i];
  }
  return values[values.length - 1];
}

export const utcDays = (a, b) => Math.floor((Date.UTC(b.getUTCFullYear(), b.getUTCMonth(), b.getUTCDate()) -
  Date.UTC(a.getUTCFullYear(), a.getUTCMonth(), a.getUTCDate())) / DAY);

const phase = { [State.New]: 'new', [State.Learning]: 'learning', [State.Review]: 'review', [State.Relearning]: 'relearning' };

function forecast(cfg) {
  const f = fsrs(generatorParameters({
    w: cfg.weights, request_retention: cfg.retention, maximum_interval: cfg.maxInterval,
    enable_fuzz: true, enable_short_term: true,
    learning_steps: cfg.learningSteps.map((m) => `${m}m`), relearning_steps: cfg.relearningSteps.map((m) => `${m}m`),
  }));
  const r = rng(cfg.seed);
  const start = Date.parse(cfg.start); // 00:00 UTC of the first history day
  const cards = Array.from({ length: cfg.cards }, () => createEmptyCard(new Date(start)));
  let nextNew = 0;
  const decay = cfg.weights[20];
  const factor = Math.pow(0.9, -1 / decay) - 1;
  const recall = (c, now) => Math.pow(1 + factor * Math.max(utcDays(c.last_review, now), 0) / c.stability, -decay);
  const studyDay = (d) => {
    const dayStart = start + d * DAY, dayEnd = dayStart + DAY;
    let t = dayStart + 9 * 3600000;
    let n = 0;
    const review = (i) => {
      const c = cards[i];
      const now = new Date(t);
      let rating;
      if (c.state === State.New) rating = pick(r, cfg.firstMix, [Rating.Again, Rating.Hard, Rating.Good, Rating.Easy]);
      else if (r() >= recall(c, now)) rating = Rating.Again;
      else rating = pick(r, cfg.recallMix, [Rating.Hard, Rating.Good, Rating.Easy]);
      cards[i] = f.next(c, now, rating).card;
      t += 10000;
      n++;
    };
    const due = [];
    for (let i = 0; i < nextNew; i++) if (cards[i].state === State.Review && cards[i].due.getTime() < dayEnd) due.push(i);
    due.sort((a, b) => cards[a].due - cards[b].due || a - b);
    due.forEach(review);
    for (let k = 0; k < cfg.newPerDay && nextNew < cards.length; k++) review(nextNew++);
    for (;;) {
      let next = -1;
      for (let i = 0; i < nextNew; i++) {
        const c = cards[i];
        if ((c.state === State.Learning || c.state === State.Relearning) && c.due.getTime() < dayEnd &&
          (next < 0 || c.due < cards[next].due)) next = i;
      }
      if (next < 0) break;
      t = Math.max(t, cards[next].due.getTime());
      review(next);
    }
    return n;
  };
  for (let d = 0; d < cfg.historyDays; d++) studyDay(d);
  const snapshot = cards.map((c) => ({
    phase: phase[c.state], due: c.due.toISOString(), stability: c.stability, difficulty: c.difficulty,
    scheduledDays: c.scheduled_days, reps: c.reps, lapses: c.lapses, step: c.learning_steps ?? 0,
    lastReview: c.last_review ? c.last_review.toISOString() : undefined,
  }));
  const actual = [];
  for (let d = 0; d < cfg.days; d++) actual.push(studyDay(cfg.historyDays + d));
  return { cards: snapshot, actual };
}

const mode = process.argv[2];
const input = JSON.parse(await new Promise((res) => {
  let s = '';
  process.stdin.on('data', (d) => { s += d; }).on('end', () => res(s));
}));
if (mode === 'forecast') process.stdout.write(JSON.stringify(forecast(input)));
else { process.stderr.write(`unknown mode ${mode}\n`); process.exit(2); }
