/**
 * The liquid engines for message templates: one that escapes every output for HTML, one
 * that does not (plain text, subjects, JSON bodies). Templates are parsed once, when the
 * receiver is built, so a syntax error shows at startup and in `tally check`. liquidjs
 * itself loads at the first template (src/core/liquid.ts).
 */
import type { Liquid, Template } from 'liquidjs';
import { liquidjs } from '../core/liquid.js';

/** A parsed template and the engine that renders it. */
export interface CompiledTemplate {
  render(scope: object): string;
}

/** Builds a liquid engine; `html` escapes every `{{ output }}` (use `| raw` to opt out). */
export function createLiquid(html: boolean): Liquid {
  const { Liquid } = liquidjs();
  return new Liquid({
    ...(html ? { outputEscape: 'escape' as const } : {}),
    strictFilters: true,
    ownPropertyOnly: true,
    // Templates come from config; includes of files are not part of the feature.
    relativeReference: false,
    root: [],
    partials: [],
    layouts: [],
    renderLimit: 2000,
  });
}

/** Parses `source` with `engine`; throws liquid's error (with line and column) when it is invalid. */
export function compileTemplate(engine: Liquid, source: string): CompiledTemplate {
  const parsed: Template[] = engine.parse(source);
  return { render: (scope) => String(engine.renderSync(parsed, scope)) };
}

/** The syntax error of `source` as one line, or undefined when it parses. */
export function templateSyntaxError(source: string): string | undefined {
  try {
    createLiquid(false).parse(source);
    return undefined;
  } catch (err) {
    return (err as Error).message.split('\n')[0];
  }
}
