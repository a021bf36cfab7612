/**
 * The Kubernetes kit (deploy/kubernetes/) checked offline: every manifest against the
 * Kubernetes OpenAPI schema (kubernetes-models) or the Prometheus Operator's CRD schema
 * (@kubernetes-models/prometheus-operator), and against what tally and its image expect:
 * probes, ports, the state volume, the shard of each pod, the token files, and the
 * PrometheusRule carrying exactly the rules of deploy/prometheus/tally-alerts.yml.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import {
  PROMETHEUS_RULE_PATH,
  RULES_PATH,
  renderPrometheusRule,
} from '../../scripts/write-prometheus-rule.js';
import { parseDockerfile, parseVolume, lastOf, stageOf } from '../../scripts/dockerfile.js';
import { parseConfig } from '../../src/config/load.js';
import { parseShard } from '../../src/config/shard.js';

const DIR = 'deploy/kubernetes';

/** A manifest as parsed from YAML. */
// biome-ignore lint/suspicious/noExplicitAny: manifests are arbitrary JSON, checked by schema below
type Manifest = Record<string, any>;

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
const manifests: { file: string; doc: Manifest }[] = files.flatMap((file) =>
  parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8')).map((d) => ({
    file,
    doc: d.toJSON() as Manifest,
  })),
);
const byKind = (kind: string): Manifest => {
  const found = manifests.filter((m) => m.doc['kind'] === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!.doc;
};

/** The model class of a manifest's apiVersion and kind, from the schema packages. */
async function modelOf(apiVersion: string, kind: string): Promise<new (d: Manifest) => { validate(): void }> {
  const module = apiVersion.startsWith('monitoring.coreos.com/')
    ? await import(`@kubernetes-models/prometheus-operator/${apiVersion}`)
    : await import(`kubernetes-models/${apiVersion}`);
  const model = (module as Record<string, unknown>)[kind];
  if (typeof model !== 'function') throw new Error(`no model for ${apiVersion} ${kind}`);
  return model as new (
    d: Manifest,
  ) => { validate(): void };
}

/** The schema's complaint about a manifest, or undefined when it is valid. */
async function schemaError(doc: Manifest): Promise<string | undefined> {
  const Model = await modelOf(doc['apiVersion'], doc['kind']);
  try {
    new Model(doc).validate();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Type errors of the manifests as the models' TypeScript interfaces (generated from the
 * same OpenAPI schema): the one check that flags an unknown (misspelt) field, which the
 * schema itself allows and only a server's strict field validation would refuse.
 */
function fieldErrors(docs: readonly Manifest[]): string[] {
  const file = path.resolve('test/deploy/__kubernetes-fields-check.ts');
  const lines: string[] = [];
  docs.forEach((doc, i) => {
    const group = doc['apiVersion'] as string;
    const module = group.startsWith('monitoring.coreos.com/')
      ? `@kubernetes-models/prometheus-operator/${group}/${doc['kind']}`
      : `kubernetes-models/${group}/${doc['kind']}`;
    lines.push(`import type { I${doc['kind']} as T${i} } from '${module}';`);
    lines.push(`export const m${i} = ${JSON.stringify(doc)} satisfies T${i};`);
  });
  const source = `${lines.join('\n')}\n`;
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
  host.getSourceFile = (name, version, ...rest) =>
    path.resolve(name) === file
      ? ts.createSourceFile(name, source, version, true)
      : getSourceFile(name, version, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => path.resolve(name) === file || fileExists(name);
  return ts
    .getPreEmitDiagnostics(ts.createProgram([file], options, host))
    .filter((d) => d.file && path.resolve(d.file.fileName) === file)
    .map((d) => {
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      const doc = docs[Math.floor(line / 2)];
      return `${doc?.['kind']}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
}

const tmp = mkdtempSync(path.join(tmpdir(), 'tally-kube-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('deploy/kubernetes', () => {
  it('lists every manifest in its kustomization', () => {
    const kustomization = parse(readFileSync(path.join(DIR, 'kustomization.yaml'), 'utf8')) as {
      resources: string[];
    };
    expect([...kustomization.resources].sort()).toEqual([...files].sort());
  });

  it.each(manifests.map((m) => [`${m.file}: ${m.doc['kind']}`, m.doc] as const))(
    '%s validates against the Kubernetes OpenAPI schema',
    async (_, doc) => {
      expect(await schemaError(doc)).toBeUndefined();
    },
  );

  it('has no field the Kubernetes types do not know (no misspelt key)', () => {
    expect(fieldErrors(manifests.map((m) => m.doc))).toEqual([]);
  }, 60_000);

  it('the field check finds a misspelt key', () => {
    const broken = structuredClone(byKind('StatefulSet'));
    broken['spec']['template']['spec']['containers'][0]['readinessProbe']['httpGets'] = {};
    expect(fieldErrors([broken]).join('\n')).toMatch(/"httpGets"' does not exist/);
  }, 60_000);

  it.each<[string, (d: Manifest) => void, RegExp]>([
    ['a string for an integer', (d) => (d['spec']['replicas'] = 'two'), /replicas must be integer/],
    [
      'a probe without a handler port',
      (d) => delete d['spec']['template']['spec']['containers'][0]['livenessProbe']['httpGet']['port'],
      /port/,
    ],
    [
      'a container without a name',
      (d) => delete d['spec']['template']['spec']['containers'][0]['name'],
      /name/,
    ],
  ])('the schema check refuses %s', async (_, breakIt, want) => {
    const broken = structuredClone(byKind('StatefulSet'));
    breakIt(broken);
    expect(await schemaError(broken)).toMatch(want);
  });

  it('runs tally non-root on a read-only root file system, probing /-/healthy and /-/ready', () => {
    const pod = byKind('StatefulSet')['spec']['template']['spec'];
    const [container] = pod['containers'];
    expect(pod['securityContext']).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001 });
    expect(container['securityContext']).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container['livenessProbe']['httpGet']).toMatchObject({ path: '/-/healthy', port: 'http-metrics' });
    expect(container['readinessProbe']['httpGet']).toMatchObject({ path: '/-/ready', port: 'http-metrics' });
    expect(pod['automountServiceAccountToken']).toBe(false);
  });

  it("writes only to a volume claim mounted at the image's state VOLUME", () => {
    const set = byKind('StatefulSet');
    const runtime = stageOf(parseDockerfile(readFileSync('Dockerfile', 'utf8')), 'final');
    const [volume] = parseVolume(lastOf(runtime, 'VOLUME')!.args);
    const mounts = set['spec']['template']['spec']['containers'][0]['volumeMounts'] as Manifest[];
    const writable = mounts.filter((m) => !m['readOnly']);
    expect(writable).toEqual([{ name: 'state', mountPath: volume }]);
    expect(set['spec']['volumeClaimTemplates'][0]['metadata']['name']).toBe('state');
    expect(set['spec']['volumeClaimTemplates'][0]['spec']['accessModes']).toEqual(['ReadWriteOnce']);
  });

  it('gives each pod the shard of its ordinal, one shard per replica', () => {
    const set = byKind('StatefulSet');
    const container = set['spec']['template']['spec']['containers'][0];
    const env = Object.fromEntries(
      (container['env'] as Manifest[]).map((e) => [e['name'], e['value'] ?? e['valueFrom']]),
    );
    expect(env['POD_INDEX']).toEqual({
      fieldRef: { fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']" },
    });
    const replicas = set['spec']['replicas'] as number;
    expect(Number(env['TALLY_SHARDS'])).toBe(replicas);
    expect(container['command'].slice(0, 2)).toEqual(['/usr/bin/tini', '--']);
    // Run the container's shell command with a stand-in node that prints its arguments.
    const bin = path.join(tmp, 'bin');
    execFileSync('mkdir', ['-p', bin]);
    writeFileSync(path.join(bin, 'node'), '#!/bin/sh\nprintf "%s\\n" "$@"\n');
    chmodSync(path.join(bin, 'node'), 0o755);
    const shards = Array.from({ length: replicas }, (_, ordinal) => {
      const out = execFileSync(
        container['command'][2],
        [...container['command'].slice(3), ...container['args']],
        {
          env: {
            PATH: `${bin}:/usr/bin:/bin`,
            POD_INDEX: String(ordinal),
            TALLY_SHARDS: env['TALLY_SHARDS'],
          },
          encoding: 'utf8',
        },
      ).split('\n');
      // The image's node flags (its ENTRYPOINT, which this command replaces), then tally.
      const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync('Dockerfile', 'utf8'))?.[1];
      const imageFlags = (JSON.parse(entrypoint ?? '[]') as string[]).filter(
        (a) => a.startsWith('--') && a !== '--',
      );
      expect(imageFlags.length).toBeGreaterThan(0);
      expect(out.slice(0, imageFlags.length + 2)).toEqual([...imageFlags, '/app/dist/main.js', 'run']);
      const shard = out[out.indexOf('--shard') + 1]!;
      expect(parseShard(shard), shard).not.toBeTypeOf('string');
      return shard;
    });
    expect(shards).toEqual(Array.from({ length: replicas }, (_, i) => `${i + 1}/${replicas}`));
    // Without the pod-index label (Kubernetes before 1.28) the pod stops, saying why,
    // instead of every pod taking shard 1.
    const missing = spawnSync(
      container['command'][2],
      [...container['command'].slice(3), ...container['args']],
      {
        env: { PATH: `${bin}:/usr/bin:/bin`, POD_INDEX: '', TALLY_SHARDS: env['TALLY_SHARDS'] },
        encoding: 'utf8',
      },
    );
    expect(missing.status).not.toBe(0);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('POD_INDEX: is empty: the apps.kubernetes.io/pod-index label');
  });

  it('has a valid tally config reading its tokens from the mounted Secret', async () => {
    const text = byKind('ConfigMap')['data']['config.yaml'] as string;
    const set = byKind('StatefulSet');
    const pod = set['spec']['template']['spec'];
    const tokenMount = (pod['containers'][0]['volumeMounts'] as Manifest[]).find(
      (m) => m['name'] === 'tokens',
    )!;
    const secretVolume = (pod['volumes'] as Manifest[]).find((v) => v['name'] === 'tokens')!;
    expect(secretVolume['secret']['secretName']).toBe('tally-tokens');
    // The Secret's files, here: one per org, under a stand-in for the mount path.
    const dir = path.join(tmp, 'secrets');
    execFileSync('mkdir', ['-p', dir]);
    const files = [...text.matchAll(/token_file: (\S+)/g)].map((m) => m[1]!);
    expect(files.length).toBeGreaterThan(0);
    let local = text;
    for (const file of files) {
      expect(path.dirname(file)).toBe(tokenMount['mountPath']);
      writeFileSync(path.join(dir, path.basename(file)), 'token\n', { mode: 0o600 });
      local = local.replaceAll(file, path.join(dir, path.basename(file)));
    }
    // The image's environment: its TALLY_STATE_DIR is the state directory (no state.dir here).
    const { config } = await parseConfig(local, {
      source: 'configmap.yaml',
      env: { TALLY_STATE_DIR: '/var/lib/tally' },
      baseDir: tmp,
    });
    expect(config.orgs.map((o) => o.token)).toEqual(files.map(() => 'token'));
    // It listens where the probes, the Service and the ServiceMonitor look.
    const port = pod['containers'][0]['ports'][0];
    expect(config.server.listen).toBe(`0.0.0.0:${port['containerPort']}`);
    const configMount = (pod['containers'][0]['volumeMounts'] as Manifest[]).find(
      (m) => m['name'] === 'config',
    )!;
    expect(`${configMount['mountPath']}/config.yaml`).toBe('/etc/tally/config.yaml');
    expect(config.state.dir).toBe('/var/lib/tally');
  });

  it('selects the pods from the Service, ServiceMonitor, PodDisruptionBudget and NetworkPolicy', () => {
    const podLabels = byKind('StatefulSet')['spec']['template']['metadata']['labels'];
    const service = byKind('Service');
    const monitor = byKind('ServiceMonitor');
    expect(podLabels).toMatchObject(service['spec']['selector']);
    expect(service['metadata']['labels']).toMatchObject(monitor['spec']['selector']['matchLabels']);
    expect(monitor['spec']['endpoints'][0]['port']).toBe(service['spec']['ports'][0]['name']);
    expect(podLabels).toMatchObject(byKind('PodDisruptionBudget')['spec']['selector']['matchLabels']);
    const policy = byKind('NetworkPolicy');
    expect(podLabels).toMatchObject(policy['spec']['podSelector']['matchLabels']);
    expect(policy['spec']['policyTypes']).toEqual(['Ingress', 'Egress']);
    expect(policy['spec']['ingress'][0]['ports'][0]['port']).toBe('http-metrics');
    // The rules expect job="tally": the ServiceMonitor takes the job from this label.
    expect(service['metadata']['labels'][monitor['spec']['jobLabel']]).toBe('tally');
  });

  it('carries the same rules as deploy/prometheus/tally-alerts.yml (run `npm run kube:rules`)', () => {
    const rulesText = readFileSync(RULES_PATH, 'utf8');
    expect(readFileSync(PROMETHEUS_RULE_PATH, 'utf8')).toBe(renderPrometheusRule(rulesText));
    const rule = byKind('PrometheusRule');
    expect(rule['spec']['groups']).toEqual((parse(rulesText) as { groups: unknown[] }).groups);
  });
});
