// Test harness (not product): the optimiser check. A learner simulated with
// ts-fsrs (independent of Takhtabush's code) whose memory follows weights
// unlike the defaults, and the reference optimiser (fsrs-rs through
// @open-spaced-repetition/binding) fitted and scored on the same reviews.
//
//   node optimiser.mjs simulate < config.json > out.json
//   node optimiser.mjs evaluate < {cards, weights: {name: [21 numbers]}} > {name: {logLoss, rmseBins}}
//
// simulate: the learner studies at 09:00 UTC (days are UTC dates, as
// ts-fsrs counts them) on every day but a seeded share of skipped days:
// every review card due, then newPerDay new cards while any are left, then
// learning and relearning steps as they come due that day. Cards are
// scheduled by ts-fsrs with the default weights (fuzz on), as a person who
// never optimised; the learner's memory is a second ts-fsrs card with the
// true weights, rated the same way: a review card is recalled with
// probability (1 + factor·days/S)^(-w20) from that card, else rated again.
// It writes every card's reviews ({rating 1-4, day: UTC day number, at: ms}),
// the reference's fitted weights, its fitting time, and the binding's
// evaluation of the default and the reference weights.
//
// The items fed to the binding are the reference's: one per review made a
// day or more after the card's previous one, holding the card's reviews up
// to it (first delta 0), in the order the reviews happened.
import { fsrs, generatorParameters, createEmptyCard, Rating, State, default_w } from 'ts-fsrs';
import { computeParameters, FSRSBinding, FSRSBindingItem, FSRSBindingReview } from '@open-spaced-repetition/binding';

const DAY = 86400000;

// sfc32, seeded by splitmix32 of the seed.
function random(seed) {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split(), b = split(), c = split(), d = split();
  return () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

const choose = (r, weights) => {
  let x = r() * weights.reduce((s, v) => s + v, 0);
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i];
    if (x < 0) return i;
  }
  return weights.length - 1;
};

function simulate(cfg) {
  const steps = { learning_steps: ['1m', '10m'], relearning_steps: ['10m'], enable_short_term: true };
  const plan = fsrs(generatorParameters({ ...steps, w: default_w, request_retention: cfg.retention, enable_fuzz: true }));
  const memory = fsrs(generatorParameters({ ...steps, w: cfg.trueWeights, enable_fuzz: false }));
  const decay = cfg.trueWeights[20];
  const factor = Math.pow(0.9, -1 / decay) - 1;
  const r = random(cfg.seed);
  const start = Date.parse(cfg.start);
  const deck = [];
  const log = [];
  const utcDay = (ms) => Math.floor(ms / DAY);
  for (let d = 0; d < cfg.days; d++) {
    if (r() < cfg.skipShare) continue;
    const dayStart = start + d * DAY, dayEnd = dayStart + DAY;
    let t = dayStart + 9 * 3600000;
    const review = (i) => {
      const c = deck[i];
      let g;
      if (c.plan.state === State.New) g = 1 + choose(r, cfg.firstMix);
      else if (c.plan.state === State.Review) {
        const days = utcDay(t) - utcDay(c.memory.last_review.getTime());
        g = r() < Math.pow(1 + factor * days / c.memory.stability, -decay) ? 2 + choose(r, cfg.recallMix) : Rating.Again;
      } else g = 1 + choose(r, cfg.stepMix);
      const now = new Date(t);
      c.plan = plan.next(c.plan, now, g).card;
      c.memory = memory.next(c.memory, now, g).card;
      log[i].push({ rating: g, day: utcDay(t), at: t });
      t += 10000;
    };
    const due = [];
    deck.forEach((c, i) => { if (c.plan.state === State.Review && c.plan.due.getTime() < dayEnd) due.push(i); });
    due.sort((a, b) => deck[a].plan.due - deck[b].plan.due || a - b);
    due.forEach(review);
    for (let k = 0; k < cfg.newPerDay && deck.length < cfg.cards; k++) {
      deck.push({ plan: createEmptyCard(new Date(t)), memory: createEmptyCard(new Date(t)) });
      log.push([]);
      review(deck.length - 1);
    }
    for (;;) {
      let next = -1;
      deck.forEach((c, i) => {
        const s = c.plan.state;
        if ((s === State.Learning || s === State.Relearning) && c.plan.due.getTime() < dayEnd &&
          (next < 0 || c.plan.due < deck[next].plan.due)) next = i;
      });
      if (next < 0) break;
      t = Math.max(t, deck[next].plan.due.getTime());
      review(next);
    }
  }
  return log;
}

// items builds the reference's items from the cards' reviews, in the
// order the scored reviews happened.
function items(cards) {
  const out = [];
  for (const reviews of cards) {
    const seq = reviews.map((v, i) => ({ rating: v.rating, delta: i === 0 ? 0 : v.day - reviews[i - 1].day, at: v.at }));
    for (let i = 1; i < seq.length; i++) {
      if (seq[i].delta > 0) out.push({ at: seq[i].at, reviews: seq.slice(0, i + 1) });
    }
  }
  out.sort((a, b) => a.at - b.at);
  return out.map((it) => new FSRSBindingItem(it.reviews.map((v) => new FSRSBindingReview(v.rating, v.delta))));
}

function evaluate(set, weights) {
  const e = new FSRSBinding(weights).evaluate(set);
  return { logLoss: e.logLoss, rmseBins: e.rmseBins };
}

const mode = process.argv[2];
const input = JSON.parse(await new Promise((res) => {
  let s = '';
  process.stdin.on('data', (d) => { s += d; }).on('end', () => res(s));
}));
if (mode === 'simulate') {
  const cards = simulate(input);
  const set = items(cards);
  const began = Date.now();
  const reference = await computeParameters(set, { enableShortTerm: true, numRelearningSteps: 1 });
  const referenceSeconds = (Date.now() - began) / 1000;
  process.stdout.write(JSON.stringify({
    cards, reference, referenceSeconds, items: set.length,
    eval: { defaults: evaluate(set, default_w), reference: evaluate(set, reference), truth: evaluate(set, input.trueWeights) },
  }));
} else if (mode === 'evaluate') {
  const set = items(input.cards);
  const out = {};
  for (const [name, w] of Object.entries(input.weights)) out[name] = evaluate(set, w);
  process.stdout.write(JSON.stringify(out));
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
