import { describe, expect, it } from 'vitest';
import { FakeClock, systemClock, type Clock, type TimerHandle } from '../../src/kernel/clock.js';

const START_MS = 1_000_000;

/** One scheduling step of a table case: a timer named `name`, due after `delayMs` (an interval when `every`). */
interface Step {
  name: string;
  delayMs: number;
  every?: boolean;
  /** Timers this one schedules when it fires (relative to its firing). */
  then?: Step[];
}

/** Schedules the steps and records each firing as `name@msSinceStart`. */
function record(clock: FakeClock, steps: Step[]): string[] {
  const fired: string[] = [];
  const schedule = (step: Step) => {
    const callback = () => {
      fired.push(`${step.name}@${clock.nowMs() - START_MS}`);
      for (const next of step.then ?? []) schedule(next);
    };
    if (step.every) clock.setInterval(callback, step.delayMs);
    else clock.setTimeout(callback, step.delayMs);
  };
  for (const step of steps) schedule(step);
  return fired;
}

describe('FakeClock timers', () => {
  const cases: { name: string; steps: Step[]; move: (clock: FakeClock) => void; fired: string[]; nowMs: number; pending: number }[] = [
    {
      name: 'nothing is due one ms before',
      steps: [{ name: 'a', delayMs: 100 }],
      move: (clock) => clock.advance(99),
      fired: [],
      nowMs: 99,
      pending: 1,
    },
    {
      name: 'fires exactly at its delay',
      steps: [{ name: 'a', delayMs: 100 }],
      move: (clock) => clock.advance(100),
      fired: ['a@100'],
      nowMs: 100,
      pending: 0,
    },
    {
      name: 'fires in due order, not scheduling order, each at its own time',
      steps: [
        { name: 'late', delayMs: 300 },
        { name: 'early', delayMs: 100 },
        { name: 'middle', delayMs: 200 },
      ],
      move: (clock) => clock.advance(1_000),
      fired: ['early@100', 'middle@200', 'late@300'],
      nowMs: 1_000,
      pending: 0,
    },
    {
      name: 'equal due times fire in scheduling order',
      steps: [
        { name: 'first', delayMs: 50 },
        { name: 'second', delayMs: 50 },
        { name: 'third', delayMs: 50 },
      ],
      move: (clock) => clock.advance(50),
      fired: ['first@50', 'second@50', 'third@50'],
      nowMs: 50,
      pending: 0,
    },
    {
      name: 'a timer scheduled by a firing one fires in the same span when due within it',
      steps: [{ name: 'outer', delayMs: 100, then: [{ name: 'inner', delayMs: 100, then: [{ name: 'beyond', delayMs: 500 }] }] }],
      move: (clock) => clock.advance(300),
      fired: ['outer@100', 'inner@200'],
      nowMs: 300,
      pending: 1,
    },
    {
      name: 'small steps add up like one big one',
      steps: [
        { name: 'a', delayMs: 100 },
        { name: 'b', delayMs: 250 },
      ],
      move: (clock) => {
        for (let step = 0; step < 10; step += 1) clock.advance(25);
      },
      fired: ['a@100', 'b@250'],
      nowMs: 250,
      pending: 0,
    },
    {
      name: 'an interval fires once per period and stays pending',
      steps: [{ name: 'tick', delayMs: 40, every: true }],
      move: (clock) => clock.advance(130),
      fired: ['tick@40', 'tick@80', 'tick@120'],
      nowMs: 130,
      pending: 1,
    },
    {
      name: 'intervals and timeouts interleave by due time',
      steps: [
        { name: 'tick', delayMs: 50, every: true },
        { name: 'once', delayMs: 75 },
      ],
      move: (clock) => clock.advance(150),
      fired: ['tick@50', 'once@75', 'tick@100', 'tick@150'],
      nowMs: 150,
      pending: 1,
    },
    {
      name: 'a delay below 1 ms waits 1 ms, as Node does',
      steps: [
        { name: 'zero', delayMs: 0 },
        { name: 'negative', delayMs: -5 },
        { name: 'nan', delayMs: Number.NaN },
      ],
      move: (clock) => clock.advance(0),
      fired: [],
      nowMs: 0,
      pending: 3,
    },
    {
      name: 'set() forward fires what falls due up to the new time',
      steps: [
        { name: 'a', delayMs: 100 },
        { name: 'b', delayMs: 500 },
      ],
      move: (clock) => clock.set(START_MS + 200),
      fired: ['a@100'],
      nowMs: 200,
      pending: 1,
    },
    {
      name: 'set() back fires nothing and keeps the absolute due times',
      steps: [{ name: 'a', delayMs: 100 }],
      move: (clock) => {
        clock.set(START_MS - 1_000);
        clock.advance(1_099);
      },
      fired: [],
      nowMs: 99,
      pending: 1,
    },
    {
      name: 'runAll() fires everything, moving time to the last due time',
      steps: [
        { name: 'a', delayMs: 10 },
        { name: 'b', delayMs: 5_000, then: [{ name: 'c', delayMs: 1 }] },
      ],
      move: (clock) => clock.runAll(),
      fired: ['a@10', 'b@5000', 'c@5001'],
      nowMs: 5_001,
      pending: 0,
    },
  ];

  it.each(cases)('$name', ({ steps, move, fired, nowMs, pending }) => {
    const clock = new FakeClock(START_MS);
    const seen = record(clock, steps);
    move(clock);
    expect(seen).toEqual(fired);
    expect(clock.nowMs() - START_MS).toBe(nowMs);
    expect(clock.pendingTimers()).toBe(pending);
  });

  it('a cleared timeout or interval never fires, and clearing twice, null or a fired handle is harmless', () => {
    const clock = new FakeClock(START_MS);
    const fired: string[] = [];
    const timeout = clock.setTimeout(() => fired.push('timeout'), 10);
    const interval = clock.setInterval(() => fired.push('interval'), 10);
    const done = clock.setTimeout(() => fired.push('done'), 5);
    clock.advance(5);
    clock.clearTimeout(timeout);
    clock.clearInterval(interval);
    clock.clearTimeout(timeout);
    clock.clearTimeout(done);
    clock.clearTimeout(null);
    clock.clearInterval(undefined);
    clock.advance(100);
    expect(fired).toEqual(['done']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('an interval may clear itself from its own callback', () => {
    const clock = new FakeClock(START_MS);
    let count = 0;
    const handle: TimerHandle = clock.setInterval(() => {
      count += 1;
      if (count === 3) clock.clearInterval(handle);
    }, 10);
    clock.advance(1_000);
    expect(count).toBe(3);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('a timer cleared by an earlier one in the same span does not fire', () => {
    const clock = new FakeClock(START_MS);
    const fired: string[] = [];
    const later = clock.setTimeout(() => fired.push('later'), 20);
    clock.setTimeout(() => {
      fired.push('earlier');
      clock.clearTimeout(later);
    }, 10);
    clock.advance(30);
    expect(fired).toEqual(['earlier']);
  });

  it('nextTimerAtMs() names the earliest due time; unref() returns the handle', () => {
    const clock = new FakeClock(START_MS);
    expect(clock.nextTimerAtMs()).toBeNull();
    const handle = clock.setTimeout(() => undefined, 300);
    clock.setTimeout(() => undefined, 200);
    expect(handle.unref()).toBe(handle);
    expect(clock.nextTimerAtMs()).toBe(START_MS + 200);
  });

  it('a throwing callback does not stop the others; the clock reaches its target and the error surfaces', () => {
    const clock = new FakeClock(START_MS);
    const fired: string[] = [];
    clock.setTimeout(() => {
      throw new Error('boom');
    }, 10);
    clock.setTimeout(() => fired.push('after'), 20);
    expect(() => clock.advance(50)).toThrow('boom');
    expect(fired).toEqual(['after']);
    expect(clock.nowMs()).toBe(START_MS + 50);
  });

  it('refuses a callback that moves the clock, a negative advance, and an endless runAll()', () => {
    const clock = new FakeClock(START_MS);
    clock.setTimeout(() => clock.advance(1), 10);
    expect(() => clock.advance(10)).toThrow(/may not move the clock/);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => clock.set(Number.NaN)).toThrow(RangeError);
    clock.setInterval(() => undefined, 1);
    expect(() => clock.runAll()).toThrow(/still pending/);
  });
});

describe('systemClock', () => {
  it('reads Date.now() and schedules on the real timers', async () => {
    const clock: Clock = systemClock;
    const before = Date.now();
    expect(clock.nowMs()).toBeGreaterThanOrEqual(before);
    const fired = await new Promise<string>((resolve) => {
      const cleared = clock.setTimeout(() => resolve('cleared'), 1);
      clock.clearTimeout(cleared);
      clock.setTimeout(() => resolve('fired'), 5).unref();
    });
    expect(fired).toBe('fired');
    let ticks = 0;
    await new Promise<void>((resolve) => {
      const interval = clock.setInterval(() => {
        ticks += 1;
        if (ticks === 2) {
          clock.clearInterval(interval);
          resolve();
        }
      }, 1);
    });
    expect(ticks).toBe(2);
  });
});
