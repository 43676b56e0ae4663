import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedQueue } from '../../src/kernel/bounded-queue.js';

describe('BoundedQueue', () => {
  it('refuses items beyond capacity and stays FIFO', () => {
    const queue = new BoundedQueue<number>(3);
    expect([1, 2, 3, 4].map((item) => queue.push(item))).toEqual([true, true, true, false]);
    expect(queue.shift()).toBe(1);
    expect(queue.push(5)).toBe(true);
    expect([queue.shift(), queue.shift(), queue.shift(), queue.shift()]).toEqual([2, 3, 5, undefined]);
    expect(queue.lengthMaxSeen).toBe(3);
    expect(() => new BoundedQueue(0)).toThrow(RangeError);
  });

  it('behaves like an array capped at capacity under any push/shift sequence', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.option(fc.integer(), { nil: undefined }), { maxLength: 200 }),
        (capacity, operations) => {
          const queue = new BoundedQueue<number>(capacity);
          const model: number[] = [];
          for (const operation of operations) {
            if (operation === undefined) {
              expect(queue.shift()).toBe(model.shift());
            } else {
              const accepted = model.length < capacity;
              if (accepted) model.push(operation);
              expect(queue.push(operation)).toBe(accepted);
            }
            expect(queue.length).toBe(model.length);
            expect(queue.lengthMaxSeen).toBeLessThanOrEqual(capacity);
          }
        },
      ),
    );
  });

  it('wakes a waiting consumer on push', async () => {
    const queue = new BoundedQueue<string>(2);
    const waiting = queue.waitForItem();
    queue.push('a');
    await waiting;
    expect(queue.shift()).toBe('a');
  });
});
