/**
 * The contract every sink runs (like Hono's common.case.test.ts): it delivers once, a
 * permanent rejection is not retryable, a transient failure is, a fired signal ends the
 * attempt at once as a timeout, and no error message names a secret.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryError, type DeliveryReason, type Notifier } from '../../src/notify/notifier.js';
import { firingNotification } from './helpers/fixtures.js';

/** How the far side behaves in one case. */
export type ContractMode = 'ok' | 'permanent' | 'transient' | 'hang';

/** The far side and a notifier aimed at it. */
export interface ContractRig {
  notifier: Notifier;
  /** How many notifications the far side accepted. */
  delivered(): number;
  close(): Promise<void>;
}

/** What each sink's test provides. */
export interface ContractHarness {
  setup(mode: ContractMode): Promise<ContractRig>;
  /** Secret values configured into the notifier (passwords, tokens, signing secrets). */
  secrets: readonly string[];
  /** Reasons expected for a permanent and a transient failure. */
  reasons: { permanent?: DeliveryReason; transient?: DeliveryReason };
  /** Modes the sink has no far side for (the console cannot reject). */
  unsupported?: readonly ContractMode[];
}

async function attempt(rig: ContractRig, signal: AbortSignal): Promise<DeliveryError | undefined> {
  try {
    await rig.notifier.send(firingNotification({ receiver: rig.notifier.name }), {
      signal,
      idempotencyKey: 'msg_contract',
    });
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(DeliveryError);
    return err as DeliveryError;
  }
}

/** Runs the shared cases against one sink. */
export function runNotifierContract(name: string, h: ContractHarness): void {
  describe(`${name}: sink contract`, () => {
    let rig: ContractRig | undefined;
    afterEach(async () => {
      await rig?.notifier.close?.();
      await rig?.close();
      rig = undefined;
    });
    const supports = (m: ContractMode) => !(h.unsupported ?? []).includes(m);

    it('delivers a notification exactly once', async () => {
      rig = await h.setup('ok');
      expect(await attempt(rig, AbortSignal.timeout(5000))).toBeUndefined();
      expect(rig.delivered()).toBe(1);
    });

    it.runIf(supports('permanent'))('a permanent rejection (4xx) is not retryable', async () => {
      rig = await h.setup('permanent');
      const err = await attempt(rig, AbortSignal.timeout(5000));
      expect(err?.retryable).toBe(false);
      expect(err?.reason).toBe(h.reasons.permanent);
      expect(rig.delivered()).toBe(0);
    });

    it.runIf(supports('transient'))('a transient failure (5xx) is retryable', async () => {
      rig = await h.setup('transient');
      const err = await attempt(rig, AbortSignal.timeout(5000));
      expect(err?.retryable).toBe(true);
      expect(err?.reason).toBe(h.reasons.transient);
    });

    it.runIf(supports('hang'))(
      'ends the attempt as a retryable timeout as soon as the signal fires',
      async () => {
        rig = await h.setup('hang');
        const started = Date.now();
        const err = await attempt(rig, AbortSignal.timeout(200));
        expect(Date.now() - started).toBeLessThan(2000);
        expect(err?.reason).toBe('timeout');
        expect(err?.retryable).toBe(true);
      },
    );

    // Runs every failure mode itself, so it holds whether it runs alone, first or last.
    it('names no secret in any error message', async () => {
      const failing = (['permanent', 'transient', 'hang'] as const).filter(supports);
      expect(failing.length).toBeGreaterThan(0);
      for (const mode of failing) {
        rig = await h.setup(mode);
        const err = await attempt(rig, AbortSignal.timeout(mode === 'hang' ? 200 : 5000));
        await rig.notifier.close?.();
        await rig.close();
        rig = undefined;
        expect(err, mode).toBeInstanceOf(DeliveryError);
        expect(err?.message, mode).not.toBe('');
        for (const secret of h.secrets) expect(err?.message, mode).not.toContain(secret);
      }
    });
  });
}
