/** `defaults` overridden by the options that are set; an option left `undefined` keeps its default. */
export function withDefaults<T extends object>(defaults: Readonly<Required<T>>, options: T): Required<T> {
  const set = Object.entries(options).filter(([key, value]) => value !== undefined && key in defaults);
  return { ...defaults, ...Object.fromEntries(set) } as Required<T>;
}
