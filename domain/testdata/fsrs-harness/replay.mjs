// Test harness (not product): the memory-state check of issue 28 §1.
// Replays each card's ratings under given weights with the two reference
// implementations, independently of Takhtabush's scheduler: fsrs-rs
// (through @open-spaced-repetition/binding, nextStates) and ts-fsrs
// (next_state), short-term memory on in both.
//
//   node replay.mjs memory < {weights: [21 numbers], cards: {id: [{rating 1-4, delta}]}}
//     > {id: {rs: {stability, difficulty}, ts: {stability, difficulty}}}
//
// delta is the number of days (the learner's days, as the caller counts
// them) since the card's previous rating; the first rating's is 0. Each
// card's list holds the ratings since its last reset (Forget).
import { fsrs, generatorParameters } from 'ts-fsrs';
import { FSRSBinding, BindingMemoryState } from '@open-spaced-repetition/binding';

const names = { 1: 'again', 2: 'hard', 3: 'good', 4: 'easy' };

function memory(cfg) {
  const rs = new FSRSBinding(cfg.weights);
  const ts = fsrs(generatorParameters({ w: cfg.weights, enable_short_term: true, enable_fuzz: false }));
  const out = {};
  for (const [id, reviews] of Object.entries(cfg.cards)) {
    let a = null; // fsrs-rs
    let b = null; // ts-fsrs
    for (const v of reviews) {
      a = rs.nextStates(a, 0.9, v.delta)[names[v.rating]].memory;
      a = new BindingMemoryState(a.stability, a.difficulty);
      b = ts.next_state(b, v.delta, v.rating);
    }
    out[id] = { rs: { stability: a.stability, difficulty: a.difficulty }, ts: { stability: b.stability, difficulty: b.difficulty } };
  }
  return out;
}

const mode = process.argv[2];
const input = JSON.parse(await new Promise((res) => {
  let s = '';
  process.stdin.on('data', (d) => { s += d; }).on('end', () => res(s));
}));
if (mode === 'memory') {
  process.stdout.write(JSON.stringify(memory(input)));
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
