/**
 * Label and annotation templates in Liquid (`{{ labels.channel }}`, `{{ value | round: 1 }}`).
 * They are parsed when the config loads, so a syntax error or an unknown filter is a config
 * error with its place in the template; rendering never throws.
 */
import type { Liquid, Template } from 'liquidjs';
import { TallyError } from '../core/errors.js';
import { liquidjs } from '../core/liquid.js';

/** A template that does not parse; the message says where in the template. */
export class TemplateError extends TallyError {
  constructor(message: string) {
    super(message, { reason: 'template' });
  }
}

/** A parsed template, or a plain string when it has no Liquid markup. */
export type CompiledTemplate = { source: string; parts: Template[] | undefined };

/** Parses and renders templates with one Liquid engine (times render in UTC). */
export class Templates {
  /** Made at the first template with Liquid markup: rules without templates never load liquidjs. */
  private liquid: Liquid | undefined;

  private engine(): Liquid {
    this.liquid ??= new (liquidjs().Liquid)({
      strictFilters: true,
      ownPropertyOnly: true,
      timezoneOffset: 0,
      cache: false,
    });
    return this.liquid;
  }

  /** Parses a template; throws {@link TemplateError}. */
  compile(source: string): CompiledTemplate {
    if (!source.includes('{{') && !source.includes('{%')) return { source, parts: undefined };
    const liquid = this.engine(); // outside the try: a missing liquidjs is no template error
    try {
      return { source, parts: liquid.parse(source) };
    } catch (err) {
      throw new TemplateError(describeLiquidError(err));
    }
  }

  /** Renders a template; on a rendering error returns the template text and the error. */
  render(t: CompiledTemplate, context: object): { text: string; error?: string } {
    if (t.parts === undefined) return { text: t.source };
    try {
      return { text: String(this.engine().renderSync(t.parts, context)).trim() };
    } catch (err) {
      return { text: t.source, error: describeLiquidError(err) };
    }
  }
}

function describeLiquidError(err: unknown): string {
  const message = (err as Error).message ?? String(err);
  const first = message.split('\n')[0] ?? message;
  const m = /^(.*), line:(\d+), col:(\d+)$/.exec(first);
  if (!m) return first;
  return `${m[1]} (at template line ${m[2]}, column ${m[3]})`;
}
