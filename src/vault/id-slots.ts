/**
 * Entry id → slot of the entry summary (entry-summary.ts), without an object per entry: ids are 8
 * hex digits (SHA-8), held as 32-bit keys of an open-addressing table in typed arrays. An id of
 * another shape (none is written today) goes to a plain map beside it.
 */
const EMPTY = -1;
const GONE = -2;
const HEX8 = /^[0-9a-f]{8}$/;

export class IdSlots {
  private keys = new Uint32Array(1024);
  private slots = new Int32Array(1024).fill(EMPTY);
  private used = 0;
  private readonly other = new Map<string, number>();

  get(id: string): number {
    if (!HEX8.test(id)) return this.other.get(id) ?? -1;
    const key = Number.parseInt(id, 16);
    for (let i = this.home(key); ; i = (i + 1) & (this.slots.length - 1)) {
      const slot = this.slots[i]!;
      if (slot === EMPTY) return -1;
      if (slot !== GONE && this.keys[i] === key) return slot;
    }
  }

  set(id: string, slot: number): void {
    if (!HEX8.test(id)) {
      this.other.set(id, slot);
      return;
    }
    const key = Number.parseInt(id, 16);
    this.remove(id);
    if ((this.used + 1) * 2 > this.slots.length) this.grow();
    let i = this.home(key);
    while (this.slots[i]! >= 0) i = (i + 1) & (this.slots.length - 1);
    if (this.slots[i] === EMPTY) this.used++;
    this.keys[i] = key;
    this.slots[i] = slot;
  }

  remove(id: string): void {
    if (!HEX8.test(id)) {
      this.other.delete(id);
      return;
    }
    const key = Number.parseInt(id, 16);
    for (let i = this.home(key); ; i = (i + 1) & (this.slots.length - 1)) {
      const slot = this.slots[i]!;
      if (slot === EMPTY) return;
      if (slot !== GONE && this.keys[i] === key) {
        this.slots[i] = GONE;
        return;
      }
    }
  }

  /** Forgets every id. */
  clear(): void {
    this.keys = new Uint32Array(1024);
    this.slots = new Int32Array(1024).fill(EMPTY);
    this.used = 0;
    this.other.clear();
  }

  private home(key: number): number {
    return (Math.imul(key, 0x9e3779b1) >>> 0) & (this.slots.length - 1);
  }

  private grow(): void {
    const [keys, slots] = [this.keys, this.slots];
    this.keys = new Uint32Array(keys.length * 2);
    this.slots = new Int32Array(slots.length * 2).fill(EMPTY);
    this.used = 0;
    for (let i = 0; i < slots.length; i++) {
      if (slots[i]! < 0) continue;
      let j = this.home(keys[i]!);
      while (this.slots[j] !== EMPTY) j = (j + 1) & (this.slots.length - 1);
      this.keys[j] = keys[i]!;
      this.slots[j] = slots[i]!;
      this.used++;
    }
  }
}
