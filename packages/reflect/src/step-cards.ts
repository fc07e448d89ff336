import { readJsonFile, StepCard, writeJsonAtomic } from '@mime-desktop/schema';

/**
 * The Pass A checkpoint, `step_cards.json`: a list of StepCards ordered by `i`. Saving is merge-safe:
 * each save re-reads the file and adds to it, so it never shrinks, whatever else wrote it meanwhile.
 */
export class StepCardStore {
  readonly file: string;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(file: string) {
    this.file = file;
  }

  /** The valid cards on disk by step number; a missing file is empty, invalid entries are skipped. */
  async load(): Promise<Map<number, StepCard>> {
    let raw: unknown;
    try {
      // Bounded and without waiting: a checkpoint that is a FIFO or a link out counts as none.
      raw = await readJsonFile(this.file);
    } catch {
      return new Map();
    }
    const cards = new Map<number, StepCard>();
    for (const entry of Array.isArray(raw) ? raw : []) {
      const parsed = StepCard.safeParse(entry);
      if (parsed.success) cards.set(parsed.data.i, parsed.data);
    }
    return cards;
  }

  /** Adds or replaces one card; saves are serialized. */
  save(card: StepCard): Promise<void> {
    const next = this.#chain.then(async () => {
      const cards = await this.load();
      cards.set(card.i, card);
      await writeJsonAtomic(
        this.file,
        [...cards.values()].sort((a, b) => a.i - b.i),
      );
    });
    this.#chain = next.catch(() => undefined);
    return next;
  }
}
