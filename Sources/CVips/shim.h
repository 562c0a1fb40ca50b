#ifndef HOIST_CVIPS_SHIM_H
#define HOIST_CVIPS_SHIM_H

// libvips's API takes optional arguments as NULL-terminated varargs, which
// Swift cannot call: each call Hoist makes is one fixed function here.
#include <vips/vips.h>
#include <string.h>

static inline int hoist_vips_start(void) {
    if (VIPS_INIT("hoist")) return -1;
    // Each image is opened once: no cache of open files or decoded pixels.
    vips_cache_set_max(0);
    return 0;
}

/// The last error's text, then cleared. The caller frees it with g_free.
static inline char *hoist_vips_error(void) {
    char *text = g_strdup(vips_error_buffer());
    vips_error_clear();
    return text;
}

static inline void hoist_unref(VipsImage *image) { g_object_unref(image); }
static inline void hoist_free(void *pointer) { g_free(pointer); }

/// The file's header only (no pixels decoded): size, format, orientation.
static inline VipsImage *hoist_open(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

static inline const char *hoist_loader(const char *path) { return vips_foreign_find_load(path); }

static inline int hoist_orientation(VipsImage *image) { return vips_image_get_orientation(image); }

/// Decoded at the size it is shown (shrink-on-load for JPEG), turned upright
/// by its EXIF orientation, fitted inside width x height, never enlarged.
static inline VipsImage *hoist_thumbnail(const char *path, int width, int height) {
    VipsImage *out = NULL;
    if (vips_thumbnail(path, &out, width, "height", height, "size", VIPS_SIZE_DOWN, "fail_on", VIPS_FAIL_ON_ERROR,
                       NULL))
        return NULL;
    return out;
}

/// A copy whose metadata is only the ICC profile: no EXIF (GPS, maker
/// notes, serial numbers), XMP, IPTC or text chunks.
static inline VipsImage *hoist_strip_metadata(VipsImage *in) {
    VipsImage *out = NULL;
    if (vips_copy(in, &out, NULL)) return NULL;
    gchar **fields = vips_image_get_fields(out);
    for (int i = 0; fields[i]; i++) {
        if (strcmp(fields[i], VIPS_META_ICC_NAME) != 0) vips_image_remove(out, fields[i]);
    }
    g_strfreev(fields);
    return out;
}

static inline int hoist_jpeg(VipsImage *in, int quality, void **buffer, size_t *length) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "optimize_coding", TRUE, NULL);
}

static inline int hoist_png(VipsImage *in, void **buffer, size_t *length) {
    return vips_pngsave_buffer(in, buffer, length, NULL);
}

static inline int hoist_webp(VipsImage *in, int quality, void **buffer, size_t *length) {
    return vips_webpsave_buffer(in, buffer, length, "Q", quality, NULL);
}

/// JPEG has no alpha: a transparent PNG is flattened onto white.
static inline VipsImage *hoist_flatten(VipsImage *in) {
    VipsImage *out = NULL;
    if (!vips_image_hasalpha(in)) {
        g_object_ref(in);
        return in;
    }
    double white[3] = {255, 255, 255};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int failed = vips_flatten(in, &out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return failed ? NULL : out;
}

static inline VipsImage *hoist_resize(VipsImage *in, double scale) {
    VipsImage *out = NULL;
    if (vips_resize(in, &out, scale, NULL)) return NULL;
    return out;
}

#endif
