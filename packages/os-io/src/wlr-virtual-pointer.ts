/**
 * The pointer on wlroots compositors (sway, ...): one long-lived `zwlr_virtual_pointer_v1` spoken over
 * the Wayland socket (wayland-wire.ts). It must stay open for the whole run: while the seat has no
 * other pointer, a pointer created for one action delivers nothing. Each action ends with a frame and
 * a round trip, so it has reached the compositor when the call resolves.
 */
import { DesktopFailureError } from './errors.ts';
import type { LogicalPoint, LogicalSize, MouseButton, ScrollDirection } from './units.ts';
import { WaylandConnection } from './wayland-wire.ts';

const MANAGER = 'zwlr_virtual_pointer_manager_v1';

/** Linux input event codes (linux/input-event-codes.h) of the buttons. */
const BUTTON_CODES: Record<MouseButton, number> = { left: 0x110, right: 0x111, middle: 0x112 };

/** zwlr_virtual_pointer_v1 request opcodes. */
const OP = { motionAbsolute: 1, button: 2, axis: 3, frame: 4, axisSource: 5, axisDiscrete: 7, destroy: 8 };

/** One wheel notch, as libinput reports it (15 degrees), in wl_fixed (24.8). */
const NOTCH = 15 * 256;

export class VirtualPointer {
  readonly #wire: WaylandConnection;
  readonly #pointer: number;
  readonly #layout: LogicalSize;
  readonly #started = performance.now();

  private constructor(wire: WaylandConnection, pointer: number, layout: LogicalSize) {
    this.#wire = wire;
    this.#pointer = pointer;
    this.#layout = layout;
  }

  /**
   * Opens a virtual pointer on the compositor at `socketPath`; `layout` is the size of the output
   * layout that absolute positions are relative to. Throws {@link DesktopFailureError} when the
   * compositor has no virtual pointer protocol (not wlroots).
   */
  static async open(socketPath: string, layout: LogicalSize): Promise<VirtualPointer> {
    const wire = await WaylandConnection.open(socketPath);
    if (!wire.globals.has(MANAGER)) {
      wire.close();
      throw new DesktopFailureError(
        `the Wayland compositor at ${socketPath} has no ${MANAGER} (it is not a wlroots compositor such as sway): mime cannot move its pointer`,
      );
    }
    const manager = wire.bind(MANAGER, 1);
    const pointer = wire.newId();
    wire.request(manager, 0, [{ uint: 0 }, { uint: pointer }]); // create_virtual_pointer(seat: default)
    await wire.roundtrip();
    return new VirtualPointer(wire, pointer, layout);
  }

  async moveTo(point: LogicalPoint): Promise<void> {
    const { width, height } = this.#layout;
    this.#send(OP.motionAbsolute, [
      { uint: this.#time() },
      { uint: Math.round(point.x) },
      { uint: Math.round(point.y) },
      { uint: width },
      { uint: height },
    ]);
    await this.#frame();
  }

  async button(button: MouseButton, down: boolean): Promise<void> {
    this.#send(OP.button, [{ uint: this.#time() }, { uint: BUTTON_CODES[button] }, { uint: down ? 1 : 0 }]);
    await this.#frame();
  }

  /** One wheel notch; `down` and `right` turn the content that way (positive axis values). */
  async wheel(direction: ScrollDirection): Promise<void> {
    const axis = direction === 'up' || direction === 'down' ? 0 : 1;
    const sign = direction === 'down' || direction === 'right' ? 1 : -1;
    this.#send(OP.axisSource, [{ uint: 0 }]); // wheel
    this.#send(OP.axisDiscrete, [
      { uint: this.#time() },
      { uint: axis },
      { int: sign * NOTCH },
      { int: sign },
    ]);
    await this.#frame();
  }

  close(): void {
    try {
      this.#send(OP.destroy, []);
    } catch {
      // The connection is gone already.
    }
    this.#wire.close();
  }

  #time(): number {
    return Math.round(performance.now() - this.#started) >>> 0;
  }

  #send(opcode: number, args: Parameters<WaylandConnection['request']>[2]): void {
    this.#wire.request(this.#pointer, opcode, args);
  }

  async #frame(): Promise<void> {
    this.#send(OP.frame, []);
    try {
      await this.#wire.roundtrip();
    } catch (error) {
      throw new DesktopFailureError(`the virtual pointer lost the compositor: ${String(error)}`, {
        cause: error,
      });
    }
  }
}
