/**
 * The committed dashboard JSON checked against Grafana's published dashboard schema, as
 * the Grafana foundation SDK types it (generated from Grafana's CUE schema): the JSON is
 * compiled as a `Dashboard` literal, so an unknown key, a wrong type or a missing required
 * field is a type error. A check that Grafana would load the file, without a Grafana.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_JSON_PATH } from '../../deploy/grafana/dashboard.js';

/** Parsed dashboard JSON, to break on purpose. */
// biome-ignore lint/suspicious/noExplicitAny: the tests reach into arbitrary JSON
type Loose = Record<string, any>;

/** Source files of the checks so far, by name (everything but the checked literal). */
const parsedFiles = new Map<string, ts.SourceFile>();
let previousProgram: ts.Program | undefined;

/** Type errors of `json` as a foundation-SDK `Dashboard`, one line each. */
function dashboardTypeErrors(json: string): string[] {
  const file = path.resolve('test/deploy/__dashboard-schema-check.ts');
  const source = [
    "import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';",
    "import type { Dataquery } from '@grafana/grafana-foundation-sdk/prometheus';",
    // The SDK's types as JSON has them: a string enum is the union of its values, builder
    // methods are no keys, and a panel's query (an open variant) is a Prometheus query.
    'type Json<T> = T extends string',
    '  ? `${T}`',
    '  : T extends readonly (infer U)[]',
    '    ? Json<U>[]',
    '    : T extends object',
    "      ? keyof T extends '_implementsDataqueryVariant'",
    '        ? Json<Dataquery>',
    '        : { [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: Json<T[K]> }',
    '      : T;',
    `export const dashboard = ${json.trim()} satisfies Json<Dashboard>;`,
    '',
  ].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  // The SDK's and the library's files are parsed once per file run, not once per check.
  host.getSourceFile = (name, version, ...rest) => {
    if (path.resolve(name) === file) return ts.createSourceFile(name, source, version, true);
    let parsed = parsedFiles.get(name);
    if (!parsed) {
      parsed = getSourceFile(name, version, ...rest);
      if (parsed) parsedFiles.set(name, parsed);
    }
    return parsed;
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => path.resolve(name) === file || fileExists(name);
  const program = ts.createProgram([file], options, host, previousProgram);
  previousProgram = program;
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && path.resolve(d.file.fileName) === file)
    .map((d) => {
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return `line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
}

describe("the dashboard JSON against Grafana's dashboard schema", () => {
  const committed = readFileSync(DASHBOARD_JSON_PATH, 'utf8');

  it('is a valid Dashboard of the foundation SDK', () => {
    expect(dashboardTypeErrors(committed)).toEqual([]);
  }, 60_000);

  it('has an annotations list, as Grafana requires', () => {
    const d = JSON.parse(committed) as { annotations?: { list?: unknown[] } };
    expect(Array.isArray(d.annotations?.list)).toBe(true);
    expect(d.annotations!.list!.length).toBeGreaterThan(0);
  });

  it.each<[string, (d: Loose) => void, RegExp]>([
    ['a number for a string', (d) => (d['refresh'] = 30), /'number' is not assignable to type 'string'/],
    ['an unknown key', (d) => (d['panelz'] = []), /'"panelz"' does not exist/],
    ['a value outside an enum', (d) => (d['graphTooltip'] = 7), /not assignable/],
    [
      'a query without a type',
      (d) => (d['panels'][1]['targets'][0]['expr'] = ['up']),
      /not assignable to type 'string'/,
    ],
  ])(
    'finds what Grafana would refuse: %s',
    (_, breakIt, want) => {
      const broken = JSON.parse(committed) as Loose;
      breakIt(broken);
      expect(dashboardTypeErrors(JSON.stringify(broken, null, 2)).join('\n')).toMatch(want);
    },
    60_000,
  );
});
