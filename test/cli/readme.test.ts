/**
 * The README's sample output is what tally prints: `check` of the README's first config
 * (and of the broken one its problem list describes), and `once` against the simulator
 * the way the README runs it. `once` depends on the simulator's clock, so its lines are
 * compared by shape (numbers, quoted titles and ids may differ), not by value.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCommand } from '../../src/cli/check.js';
import { onceCommand } from '../../src/cli/once.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { captureIO } from '../helpers/io.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The fenced block of `lang` that follows the first occurrence of `after`. */
function blockAfter(after: string, lang: string): string {
  const at = README.indexOf(after);
  expect(at, `README mentions ${after}`).toBeGreaterThanOrEqual(0);
  const open = README.indexOf(`\`\`\`${lang}\n`, at);
  const start = open + lang.length + 4;
  return README.slice(start, README.indexOf('\n```', start));
}

/** A line with its numbers, quoted text and ids made wildcards. */
function shape(line: string): string {
  return line
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b(ses|ch)_\d+/g, '$1_N')
    .replace(/\d+(\.\d+)?/g, 'N')
    .replace(/\((\w+ N(, )?)+\)/g, '(word N…)');
}

let dir: string;
let sim: Simulator;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-readme-'));
  sim = await startSimulator({});
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the README', () => {
  it('shows what check prints for its first tally.yaml, token from a file', async () => {
    const script = blockAfter('## Your first config: tally.yaml', 'sh');
    const yaml = /cat > tally\.yaml <<'EOF'\n([\s\S]*?)\nEOF/.exec(script)?.[1];
    expect(yaml).toBeDefined();
    await writeFile(path.join(dir, 'acme-token'), 'YOUR-API-TOKEN\n', { mode: 0o600 });
    const file = path.join(dir, 'tally.yaml');
    await writeFile(file, `${yaml}\n`);
    const io = captureIO({}, dir);
    expect(await checkCommand(['--config', file], io)).toBe(0);
    const shown = blockAfter('node dist/main.js check --config tally.yaml', 'text').replace(
      '/home/you/tally/tally.yaml',
      file,
    );
    expect(io.out().trimEnd()).toBe(shown);
  });

  it('shows what check prints for a broken one', async () => {
    const shown = blockAfter('`check` lists every problem', 'text');
    // The config the listed problems describe: a bare host, a misspelt token key.
    const file = path.join(dir, 'tally.yaml');
    await writeFile(file, 'upstream:\n  base_url: api.example.com\norgs:\n  - slug: acme\n    tokn: x\n');
    const io = captureIO({}, dir);
    expect(await checkCommand(['--config', file], io)).toBe(1);
    expect(io.err().trimEnd()).toBe(shown.replace(/^tally\.yaml:/, `${file}:`));
  });

  it('shows what once prints against the simulator, line by line in shape', async () => {
    const script = blockAfter('### Reading the API once', 'sh');
    const config = /printf '%s\\n' ('[^']*') ('[^']*') > once\.yaml/.exec(script);
    expect(config).not.toBeNull();
    const file = path.join(dir, 'once.yaml');
    const text = [config![1]!, config![2]!]
      .map((s) => s.slice(1, -1))
      .join('\n')
      .replace('http://127.0.0.1:8080', sim.url);
    await writeFile(file, `${text}\n`);
    const io = captureIO({}, dir);
    expect(await onceCommand(['--config', file], io)).toBe(0);
    const shown = blockAfter('node dist/main.js once --config once.yaml 2>/dev/null', 'text').split('\n');
    const printed = io.out().trimEnd().split('\n');
    // Everything but the live sessions' lines, whose number depends on the clock.
    const head = (lines: string[]) => lines.slice(0, lines.indexOf('  live sessions:') + 1);
    expect(head(printed).map(shape)).toEqual(head(shown).map(shape));
    const live = (lines: string[]) => lines.slice(lines.indexOf('  live sessions:') + 1).map(shape);
    for (const line of live(printed)) expect(live(shown)).toContain(line);
  });
});
