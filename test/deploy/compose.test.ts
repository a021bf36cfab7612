import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config/load.js';

interface Service {
  build?: string | { context?: string; dockerfile?: string };
  image?: string;
  command?: string[] | string;
  depends_on?: string[] | Record<string, unknown>;
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  secrets?: (string | { source: string; target?: string })[];
  env_file?: string | string[];
  ports?: string[];
}

interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file?: string }>;
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as Compose;
const services = compose.services;

/** A volume entry as `{ source, target }` (short `src:dst[:mode]` or long form). */
function mount(v: Service['volumes'] extends (infer T)[] | undefined ? T : never): {
  source: string;
  target: string;
} {
  if (typeof v === 'string') {
    const [source, target] = v.split(':');
    return { source: source!, target: target ?? source! };
  }
  return { source: v.source ?? '', target: v.target ?? '' };
}

const isPath = (source: string) => source.startsWith('.') || source.startsWith('/');

/** A service's mounts, by target path in the container. */
function mountsOf(name: string): Map<string, string> {
  return new Map((services[name]?.volumes ?? []).map((v) => [mount(v).target, mount(v).source] as const));
}

describe('docker-compose.yml', () => {
  it('runs tally, the simulator, Prometheus, Alertmanager, Grafana and an SMTP catcher', () => {
    expect(Object.keys(services).sort()).toEqual([
      'alertmanager',
      'grafana',
      'mailpit',
      'prometheus',
      'sim',
      'tally',
    ]);
    expect(services['sim']!.image).toBe(services['tally']!.image);
    expect(services['sim']!.command).toContain('sim');
  });

  it.each(Object.entries(services))(
    '%s mounts only files and directories of the repository',
    (_, service) => {
      for (const v of service.volumes ?? []) {
        const { source } = mount(v);
        if (isPath(source)) expect(existsSync(source), source).toBe(true);
        else expect(Object.keys(compose.volumes ?? {}), `named volume ${source}`).toContain(source);
      }
      for (const file of [service.env_file ?? []].flat()) expect(existsSync(file), file).toBe(true);
    },
  );

  it.each(Object.entries(services))('%s publishes its ports on the loopback interface only', (_, service) => {
    for (const port of service.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it.each(Object.entries(services))(
    '%s refers only to defined services, secrets and build contexts',
    (_, service) => {
      const deps = Array.isArray(service.depends_on)
        ? service.depends_on
        : Object.keys(service.depends_on ?? {});
      for (const dep of deps) expect(Object.keys(services)).toContain(dep);
      for (const s of service.secrets ?? []) {
        const name = typeof s === 'string' ? s : s.source;
        const file = compose.secrets?.[name]?.file;
        expect(file, `secret ${name}`).toBeDefined();
        expect(existsSync(file!), file).toBe(true);
      }
      if (service.build) {
        const context = typeof service.build === 'string' ? service.build : (service.build.context ?? '.');
        const dockerfile =
          typeof service.build === 'string' ? 'Dockerfile' : (service.build.dockerfile ?? 'Dockerfile');
        expect(statSync(path.join(context, dockerfile)).isFile()).toBe(true);
      }
    },
  );

  it('gives tally a valid config at the image’s TALLY_CONFIG, with its state in the volume', async () => {
    const mounts = mountsOf('tally');
    const configFile = mounts.get('/etc/tally/config.yaml');
    expect(configFile).toBe('./deploy/compose/tally.yaml');
    expect(compose.volumes).toHaveProperty(mounts.get('/var/lib/tally')!);
    // Secrets appear in the container at /run/secrets/<name>; read them from the repository.
    let text = readFileSync(configFile!, 'utf8');
    for (const [name, secret] of Object.entries(compose.secrets ?? {}))
      text = text.replaceAll(`/run/secrets/${name}`, path.resolve(secret.file!));
    const loaded = await parseConfig(text, {
      source: configFile!,
      env: {},
      baseDir: path.dirname(configFile!),
    });
    expect(loaded.config.state.dir).toBe('/var/lib/tally');
    expect(loaded.config.orgs[0]!.token).toBe('demo-token');
    // The upstream is the sim service, on the port its command listens on.
    const sim = services['sim']!.command as string[];
    const base = new URL(loaded.config.upstream.base_url);
    expect(base.hostname).toBe('sim');
    expect(base.port).toBe(sim[sim.indexOf('--port') + 1]);
    expect(sim[sim.indexOf('--host') + 1]).toBe('0.0.0.0');
    // The e-mail receiver goes to the SMTP catcher.
    const mail = loaded.config.receivers.find((r) => 'email' in r && r.email);
    expect(mail && 'email' in mail ? mail.email?.smtp.host : undefined).toBe('mailpit');
    expect(loaded.config.server.listen).toBe('0.0.0.0:10464');
  });

  it('has Prometheus scrape the tally service with the rule file, and Grafana read Prometheus', () => {
    const prom = mountsOf('prometheus');
    expect(prom.get('/etc/prometheus')).toBe('./deploy/prometheus');
    const promConfig = parse(readFileSync('deploy/prometheus/prometheus.yml', 'utf8')) as {
      rule_files: string[];
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    };
    for (const f of promConfig.rule_files)
      expect(existsSync(path.join('deploy/prometheus', f)), f).toBe(true);
    const job = promConfig.scrape_configs.find((j) => j.job_name === 'tally');
    expect(job?.static_configs[0]?.targets).toEqual(['tally:10464']);
    expect(services['tally']!.ports).toContain('127.0.0.1:10464:10464');

    const grafana = mountsOf('grafana');
    expect(grafana.get('/etc/grafana/provisioning')).toBe('./deploy/grafana/provisioning');
    const datasources = parse(
      readFileSync('deploy/grafana/provisioning/datasources/prometheus.yml', 'utf8'),
    ) as {
      datasources: { type: string; url: string }[];
    };
    expect(datasources.datasources[0]).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090' });
    const providers = parse(readFileSync('deploy/grafana/provisioning/dashboards/tally.yml', 'utf8')) as {
      providers: { options: { path: string } }[];
    };
    const dashboardDir = providers.providers[0]!.options.path;
    const mountedDashboard = [...grafana.entries()].find(([target]) => target.startsWith(`${dashboardDir}/`));
    expect(mountedDashboard?.[1]).toBe('./deploy/grafana/tally-dashboard.json');
  });

  it('wires Alertmanager to both tally and Prometheus, and mails through the SMTP catcher', async () => {
    const am = mountsOf('alertmanager');
    const amFile = am.get('/etc/alertmanager/alertmanager.yml');
    expect(amFile).toBe('./deploy/compose/alertmanager.yml');
    expect(services['alertmanager']!.command).toContain('--config.file=/etc/alertmanager/alertmanager.yml');
    expect(services['alertmanager']!.ports).toContain('127.0.0.1:9093:9093');
    // Alertmanager's own check of its config, where amtool is installed (CI installs it).
    const amtool = spawnSync('amtool', ['check-config', amFile!], { encoding: 'utf8' });
    if (amtool.error === undefined) expect(amtool.status, amtool.stdout + amtool.stderr).toBe(0);
    const amConfig = parse(readFileSync(amFile!, 'utf8')) as { global: { smtp_smarthost: string } };
    expect(amConfig.global.smtp_smarthost).toBe('mailpit:1025');

    // Prometheus sends the alerts of tally's rules there.
    const promConfig = parse(readFileSync('deploy/prometheus/prometheus.yml', 'utf8')) as {
      alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] };
    };
    expect(promConfig.alerting.alertmanagers[0]!.static_configs[0]!.targets).toEqual(['alertmanager:9093']);

    // tally pushes every alert there: the first route, continuing to the others.
    const text = readFileSync('deploy/compose/tally.yaml', 'utf8').replaceAll(
      '/run/secrets/demo-token',
      path.resolve(compose.secrets!['demo-token']!.file!),
    );
    const { config } = await parseConfig(text, {
      source: 'deploy/compose/tally.yaml',
      env: {},
      baseDir: 'deploy/compose',
    });
    const receiver = config.receivers.find((r) => 'alertmanager' in r && r.alertmanager);
    expect(receiver && 'alertmanager' in receiver ? receiver.alertmanager?.urls : undefined).toEqual([
      'http://alertmanager:9093',
    ]);
    expect(config.route?.routes?.[0]).toMatchObject({ receiver: receiver!.name, continue: true });
    expect(services['tally']!.depends_on).toContain('alertmanager');
  });
});
