/**
 * The e-mail's subject, text and HTML bodies, rendered from liquid templates over
 * {@link templateContext}. The defaults below list every alert of the group; the labels
 * all alerts share are shown once, each alert shows only its own. A resolved alert says
 * what resolved and how long it lasted, not its firing summary again. The HTML is
 * self-contained: inline styles only, no images, fonts or stylesheets from elsewhere.
 */
import type { Notification } from '../../alerts/types.js';
import { type CompiledTemplate, compileTemplate, createLiquid } from '../liquid.js';
import { templateContext } from '../template-context.js';

/** The default subject: `[FIRING:3] ChannelOffline (org=acme)`, `[TEST] ` first for a test. */
export const DEFAULT_SUBJECT = '{{ subject }}';

/** The default plain-text body. */
export const DEFAULT_TEXT = `{{ statusTag }} {{ title }}
{% if test %}
This is a test notification sent by \`tally notify-test\`. No alert is firing.
{% endif %}
{%- for l in sharedLabelList %}{% if forloop.first %}
Labels of every alert: {% else %}, {% endif %}{{ l.name }}={{ l.value }}{% endfor %}
{%- if firing.size > 0 %}
Firing ({{ firing.size }}):
{% for a in firing %}
- {{ a.summary }}
{%- if a.description != "" %}
  {{ a.description }}
{%- endif %}
  since {{ a.startsAtText }}
{%- for l in a.ownLabelList %}{% if forloop.first %}
  labels: {% else %}, {% endif %}{{ l.name }}={{ l.value }}{% endfor %}
{%- if a.generatorURL %}
  {{ a.generatorURL }}
{%- endif %}
{% endfor %}
{%- endif %}
{%- if resolved.size > 0 %}
Resolved ({{ resolved.size }}):
{% for a in resolved %}
- {{ a.headline }}
  lasted {{ a.durationText }}: {{ a.startsAtText }} to {{ a.endsAtText }}
{%- for l in a.ownLabelList %}{% if forloop.first %}
  labels: {% else %}, {% endif %}{{ l.name }}={{ l.value }}{% endfor %}
{%- if a.generatorURL %}
  {{ a.generatorURL }}
{%- endif %}
{% endfor %}
{%- endif %}
--
Sent by tally to {{ receiver }} at {{ createdAtText }}.
{%- if externalURL %}
{{ externalURL }}
{%- endif %}
`;

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

/** The default HTML body: a card per alert, red for firing, green for resolved. */
export const DEFAULT_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ subject }}</title>
</head>
{%- if status == "firing" %}{% assign accent = "#c62828" %}{% assign tint = "#fdecea" %}{% else %}{% assign accent = "#2e7d32" %}{% assign tint = "#e8f5e9" %}{% endif %}
<body style="margin:0;padding:0;background:#f4f5f7;${FONT};color:#1f2328;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7;padding:24px 0;">
<tr><td align="center">
<table role="presentation" width="640" cellpadding="0" cellspacing="0" style="width:640px;max-width:100%;background:#ffffff;border-radius:8px;border:1px solid #d0d7de;overflow:hidden;">
{%- if test %}
<tr><td style="background:#6f42c1;color:#ffffff;padding:8px 24px;font-size:13px;font-weight:600;">TEST: sent by tally notify-test. No alert is firing.</td></tr>
{%- endif %}
<tr><td style="background:{{ accent }};color:#ffffff;padding:18px 24px;">
<div style="font-size:13px;font-weight:700;letter-spacing:0.04em;">{{ statusTag }}</div>
<div style="font-size:20px;font-weight:600;margin-top:4px;">{{ title }}</div>
{%- if commonAnnotations.summary and alerts.size > 1 %}
<div style="font-size:14px;margin-top:6px;opacity:0.9;">{{ commonAnnotations.summary }}</div>
{%- endif %}
</td></tr>
<tr><td style="padding:16px 24px 4px 24px;font-size:14px;color:#57606a;">
{%- if firing.size > 0 %}<span style="color:#c62828;font-weight:600;">{{ firing.size }} firing</span>{% endif %}
{%- if firing.size > 0 and resolved.size > 0 %} &middot; {% endif %}
{%- if resolved.size > 0 %}<span style="color:#2e7d32;font-weight:600;">{{ resolved.size }} resolved</span>{% endif %}
{%- assign shown = 0 %}{% for l in groupLabelList %}{% if l.name != "alertname" %}{% if shown == 0 %} &middot; {% else %}, {% endif %}{{ l.name }}=<b>{{ l.value }}</b>{% assign shown = shown | plus: 1 %}{% endif %}{% endfor %}
</td></tr>
{%- if sharedLabelList.size > 0 %}
<tr><td style="padding:6px 24px 0 24px;font-size:12px;color:#57606a;">Labels of every alert:
{%- for l in sharedLabelList %} <span style="display:inline-block;background:{{ tint }};color:#1f2328;border-radius:10px;padding:2px 8px;margin:0 4px 4px 0;font-size:12px;font-family:SFMono-Regular,Consolas,'Liberation Mono',monospace;">{{ l.name }}={{ l.value }}</span>{% endfor %}
</td></tr>
{%- endif %}
{%- for a in alerts %}
{%- if a.status == "firing" %}{% assign c = "#c62828" %}{% assign bg = "#fdecea" %}{% else %}{% assign c = "#2e7d32" %}{% assign bg = "#e8f5e9" %}{% endif %}
<tr><td style="padding:8px 24px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border:1px solid #d0d7de;border-left:4px solid {{ c }};border-radius:6px;">
<tr><td style="padding:12px 16px;">
<div style="font-size:12px;font-weight:700;color:{{ c }};text-transform:uppercase;letter-spacing:0.04em;">{{ a.status }}{% if a.labels.severity %} &middot; <span style="color:#57606a;">{{ a.labels.severity }}</span>{% endif %}</div>
<div style="font-size:16px;font-weight:600;margin-top:4px;">{{ a.headline }}</div>
{%- if a.description != "" and a.status == "firing" %}
<div style="font-size:14px;color:#444c56;margin-top:6px;line-height:1.45;">{{ a.description }}</div>
{%- endif %}
<div style="margin-top:10px;">
{%- for l in a.ownLabelList %}<span style="display:inline-block;background:{{ bg }};color:#1f2328;border-radius:10px;padding:2px 8px;margin:0 4px 4px 0;font-size:12px;font-family:SFMono-Regular,Consolas,'Liberation Mono',monospace;">{{ l.name }}={{ l.value }}</span>{% endfor %}
</div>
<div style="font-size:13px;color:#57606a;margin-top:6px;">
{%- if a.status == "firing" %}Firing since {{ a.startsAtText }}{% else %}Resolved {{ a.endsAtText }} after {{ a.durationText }} (firing since {{ a.startsAtText }}){% endif %}
{%- if a.generatorURL %} &middot; <a href="{{ a.generatorURL }}" style="color:#0969da;text-decoration:none;white-space:nowrap;">View details &rsaquo;</a>{% endif %}
</div>
</td></tr>
</table>
</td></tr>
{%- endfor %}
<tr><td style="padding:16px 24px 20px 24px;font-size:12px;color:#6e7781;border-top:1px solid #eaeef2;">
Sent by tally to <b>{{ receiver }}</b> at {{ createdAtText }}.
{%- if externalURL %} <a href="{{ externalURL }}" style="color:#0969da;text-decoration:none;">Open tally &rsaquo;</a>{% endif %}
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;

/** Template sources; omitted ones use the defaults. */
export interface EmailTemplateSources {
  subject?: string | undefined;
  text?: string | undefined;
  html?: string | undefined;
}

/** A rendered message. */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** Parsed e-mail templates; build once per receiver, render per notification. */
export class EmailTemplates {
  readonly #subject: CompiledTemplate;
  readonly #text: CompiledTemplate;
  readonly #html: CompiledTemplate;

  /** Parses the templates; throws liquid's error when one is invalid. */
  constructor(sources: EmailTemplateSources = {}) {
    const text = createLiquid(false);
    this.#subject = compileTemplate(text, sources.subject ?? DEFAULT_SUBJECT);
    this.#text = compileTemplate(text, sources.text ?? DEFAULT_TEXT);
    this.#html = compileTemplate(createLiquid(true), sources.html ?? DEFAULT_HTML);
  }

  /** Renders the message of `n`. The subject is one line, whatever the template produced. */
  render(n: Notification): RenderedEmail {
    const ctx = templateContext(n);
    return {
      subject: this.#subject.render(ctx).replace(/\s+/g, ' ').trim(),
      text: `${this.#text
        .render(ctx)
        .replace(/\n{3,}/g, '\n\n')
        .trim()}\n`,
      html: this.#html.render(ctx),
    };
  }
}
