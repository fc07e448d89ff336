#!/usr/bin/env bash
# Sets mime up on a fresh Debian/Ubuntu machine that has Node.js 20.19+: the system packages the
# desktop, the demo and the tests need, pnpm 10, and the project's dependencies. Idempotent: what is
# already there is left alone. Run it as root or as a user with sudo; `.ci/run` runs it too.
#
#   ./setup.sh            # everything
#   ./setup.sh --no-apt   # skip the system packages (prints what they are)
set -euo pipefail
cd "$(dirname "$0")"

# The one list of system packages: an X server, input tools, a browser for the demo app, a window
# manager, terminals for the recorder tests, clipboard tools, the accessibility bus (a session bus,
# AT-SPI and GTK's bridge to it), fonts, OCR-free GTK apps for tests; for Wayland under wlroots, a
# compositor to test on (sway, headless) and what mime drives it with (grim for frames, wtype for keys;
# XWayland for X11 apps there; Qt's Wayland platform plugin for Qt apps natively there); for GNOME on Wayland, mutter to test on (headless) and PipeWire with its
# session manager and GStreamer's PipeWire source, which mime reads mutter's screen cast through.
SYSTEM_PACKAGES=(
  xvfb xauth xdotool x11-utils x11-xkb-utils libxtst6 mousepad galculator gnumeric featherpad
  chromium openbox xterm tmux xclip xsel
  dbus-daemon at-spi2-core libatk-adaptor zenity gtk-4-examples firefox-esr
  fonts-dejavu-core locales python3-tk python3-gi gir1.2-gtk-4.0
  sway grim wtype xwayland qtwayland5
  mutter pipewire wireplumber gstreamer1.0-pipewire gstreamer1.0-tools
)

# sway refuses to run as root: as root, the Wayland tests start it as this unprivileged user.
WAYLAND_TEST_USER="${MIME_WAYLAND_USER:-mime-wl}"

say() { printf 'setup: %s\n' "$*" >&2; }

node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'
}
if ! node_ok; then
  say "mime needs Node.js 20.19 or newer (found: $(node --version 2>/dev/null || echo none)); install it from https://nodejs.org or your package manager, then rerun ./setup.sh"
  exit 2
fi

install_apt=1
if [ "${1:-}" = "--no-apt" ]; then install_apt=0; fi

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for pkg in "${SYSTEM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
else
  missing=("${SYSTEM_PACKAGES[@]}")
fi

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$install_apt" -eq 1 ] && command -v apt-get >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
      if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
        say "installing system packages needs root: run ./setup.sh as root, or install: ${missing[*]}"
        exit 2
      fi
    fi
    say "installing system packages with apt-get: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    say "not installed (no apt-get here, or --no-apt): ${missing[*]}"
    say "install them with your package manager (names are Debian's; Xvfb is 'xorg-x11-server-Xvfb' on Fedora, 'xorg-server-xvfb' on Arch),"
    say "then rerun ./setup.sh; mime record/replay need an X display, the demo and tests need Xvfb, xdotool and Chromium"
  fi
else
  say "system packages: all present"
fi

# The replay matrix (pnpm bench matrix) runs apps in German: their locale must exist.
if command -v localedef >/dev/null 2>&1 && ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
  if [ "$(id -u)" -eq 0 ]; then
    say "generating the de_DE.UTF-8 locale (the replay matrix runs apps in German)"
    localedef -i de_DE -f UTF-8 de_DE.UTF-8 || say "could not generate de_DE.UTF-8: the German matrix runs fall back to English"
  else
    say "no de_DE.UTF-8 locale: as root, run 'localedef -i de_DE -f UTF-8 de_DE.UTF-8' (the replay matrix runs apps in German)"
  fi
fi

if [ "$(id -u)" -eq 0 ] && ! id -u "$WAYLAND_TEST_USER" >/dev/null 2>&1; then
  if command -v useradd >/dev/null 2>&1; then
    say "creating the unprivileged user $WAYLAND_TEST_USER that the Wayland tests run sway as (sway refuses root)"
    useradd --system --create-home "$WAYLAND_TEST_USER"
  else
    say "no useradd here: create a user $WAYLAND_TEST_USER yourself, or the Wayland (sway) tests skip"
  fi
fi

if ! command -v pnpm >/dev/null 2>&1 || ! pnpm --version | grep -q '^10\.'; then
  say "installing pnpm 10 with npm (global)"
  npm install -g pnpm@10 >/dev/null
fi

say "installing dependencies with pnpm $(pnpm --version)"
pnpm install --frozen-lockfile
say "done: try 'pnpm demo', then 'pnpm mime --help'"
