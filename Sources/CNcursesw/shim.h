#ifndef HOIST_CNCURSESW_SHIM_H
#define HOIST_CNCURSESW_SHIM_H

// SwiftPM drops ncursesw's pkg-config -D flags; without this get_wch is hidden.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#include <locale.h>
#include <stdio.h>
#include <ncursesw/curses.h>

// Swift cannot import function-like or computed macros; re-export them.
static inline attr_t hoist_A_NORMAL(void) { return A_NORMAL; }
static inline attr_t hoist_A_BOLD(void) { return A_BOLD; }
static inline attr_t hoist_A_DIM(void) { return A_DIM; }
static inline attr_t hoist_A_REVERSE(void) { return A_REVERSE; }
static inline attr_t hoist_A_UNDERLINE(void) { return A_UNDERLINE; }
static inline attr_t hoist_A_ITALIC(void) { return A_ITALIC; }
static inline attr_t hoist_COLOR_PAIR(short n) { return COLOR_PAIR(n); }
static inline int hoist_KEY_F(int n) { return KEY_F(n); }
static inline int hoist_KEY_RESIZE(void) { return KEY_RESIZE; }
static inline int hoist_KEY_CODE_YES(void) { return KEY_CODE_YES; }
static inline int hoist_ERR(void) { return ERR; }
static inline int hoist_OK(void) { return OK; }

// setlocale(LC_ALL, "") must run before initscr() or CJK prints as garbage.
static inline void hoist_setlocale_from_environment(void) { setlocale(LC_ALL, ""); }

// ncurses' globals are mutable C variables, which Swift 6 refuses to read
// directly (shared mutable state); read them through functions instead.
static inline WINDOW *hoist_stdscr(void) { return stdscr; }
static inline WINDOW *hoist_curscr(void) { return curscr; }
static inline int hoist_COLOR_PAIRS(void) { return COLOR_PAIRS; }
static inline int hoist_LINES(void) { return LINES; }
static inline int hoist_COLS(void) { return COLS; }
static inline FILE *hoist_stdin(void) { return stdin; }
static inline FILE *hoist_stdout(void) { return stdout; }

// Mouse masks are computed macros.
static inline mmask_t hoist_BUTTON1_PRESSED(void) { return BUTTON1_PRESSED; }
static inline mmask_t hoist_BUTTON1_CLICKED(void) { return BUTTON1_CLICKED; }
static inline mmask_t hoist_BUTTON4_PRESSED(void) { return BUTTON4_PRESSED; }
static inline mmask_t hoist_BUTTON5_PRESSED(void) {
#ifdef BUTTON5_PRESSED
    return BUTTON5_PRESSED;
#else
    return 0;
#endif
}

#endif
