#ifndef HOIST_CVIPS_H
#define HOIST_CVIPS_H

// libvips, opened with dlopen the first time an image is prepared: a hoist
// that sends no image never loads it and the ~100 libraries it pulls in
// (start-up went from about 20 ms to 50 ms when they were linked), and
// hoist runs where libvips is not installed.
//
// libvips's API takes optional arguments as NULL-terminated varargs, which
// Swift cannot call: each call Hoist makes is one fixed function here.

#include <stddef.h>

typedef struct _VipsImage VipsImage;

/// 0 once libvips is loaded and started; -1 when it cannot be (hoist_vips_error says why).
int hoist_vips_start(void);

/// The last error's text, then cleared. The caller frees it with hoist_free.
char *hoist_vips_error(void);
void hoist_error_clear(void);

void hoist_ref(VipsImage *image);
void hoist_unref(VipsImage *image);
void hoist_free(void *pointer);

int hoist_width(VipsImage *image);
int hoist_height(VipsImage *image);

/// The file's header only (no pixels decoded): size, format, orientation.
VipsImage *hoist_open(const char *path);
const char *hoist_loader(const char *path);
int hoist_orientation(VipsImage *image);

/// Decoded at the size it is shown (shrink-on-load for JPEG), turned upright
/// by its EXIF orientation, fitted inside width x height, never enlarged.
VipsImage *hoist_thumbnail(const char *path, int width, int height);

/// A copy whose metadata is only the ICC profile: no EXIF (GPS, maker
/// notes, serial numbers), XMP, IPTC or text chunks.
VipsImage *hoist_strip_metadata(VipsImage *in);

int hoist_jpeg(VipsImage *in, int quality, void **buffer, size_t *length);
int hoist_png(VipsImage *in, void **buffer, size_t *length);
int hoist_webp(VipsImage *in, int quality, void **buffer, size_t *length);

/// JPEG has no alpha: a transparent PNG is flattened onto white.
VipsImage *hoist_flatten(VipsImage *in);
VipsImage *hoist_resize(VipsImage *in, double scale);

#endif
