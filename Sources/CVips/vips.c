#include "CVips.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libvips's own values (vips/image.h, resample.h, foreign.h, header.h; 8.x ABI, libvips.so.42).
enum { ACCESS_SEQUENTIAL = 1, SIZE_DOWN = 2, FAIL_ON_ERROR = 2 };
static const char *const ICC_NAME = "icc-profile-data";

static struct {
    int (*init)(const char *);
    void (*cache_set_max)(int);
    const char *(*error_buffer)(void);
    void (*error_clear)(void);
    void *(*object_ref)(void *);
    void (*object_unref)(void *);
    void (*free)(void *);
    char *(*strdup)(const char *);
    void (*strfreev)(char **);
    int (*get_width)(const VipsImage *);
    int (*get_height)(const VipsImage *);
    int (*get_orientation)(VipsImage *);
    char **(*get_fields)(VipsImage *);
    int (*remove)(VipsImage *, const char *);
    int (*hasalpha)(VipsImage *);
    VipsImage *(*new_from_file)(const char *, ...);
    const char *(*find_load)(const char *);
    int (*thumbnail)(const char *, VipsImage **, int, ...);
    int (*copy)(VipsImage *, VipsImage **, ...);
    int (*jpegsave_buffer)(VipsImage *, void **, size_t *, ...);
    int (*pngsave_buffer)(VipsImage *, void **, size_t *, ...);
    int (*webpsave_buffer)(VipsImage *, void **, size_t *, ...);
    void *(*array_double_new)(const double *, int);
    void (*area_unref)(void *);
    int (*flatten)(VipsImage *, VipsImage **, ...);
    int (*resize)(VipsImage *, VipsImage **, double, ...);
} vips;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int started = -1;
static char loadError[512];

static void start(void) {
    // HOIST_LIBVIPS names another build of it (a path, or a soname).
    const char *name = getenv("HOIST_LIBVIPS");
    void *library = dlopen(name && *name ? name : "libvips.so.42", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(loadError, sizeof loadError,
                 "images cannot be prepared: libvips is not installed (%s); apt-get install libvips42", dlerror());
        return;
    }
#define FIND(field, name)                                                                                      \
    if (!(*(void **)&vips.field = dlsym(library, name))) {                                                     \
        snprintf(loadError, sizeof loadError, "libvips has no %s: a libvips 8 is needed", name);               \
        return;                                                                                                \
    }
    FIND(init, "vips_init") FIND(cache_set_max, "vips_cache_set_max") FIND(error_buffer, "vips_error_buffer")
    FIND(error_clear, "vips_error_clear") FIND(object_ref, "g_object_ref") FIND(object_unref, "g_object_unref")
    FIND(free, "g_free") FIND(strdup, "g_strdup") FIND(strfreev, "g_strfreev")
    FIND(get_width, "vips_image_get_width") FIND(get_height, "vips_image_get_height")
    FIND(get_orientation, "vips_image_get_orientation") FIND(get_fields, "vips_image_get_fields")
    FIND(remove, "vips_image_remove") FIND(hasalpha, "vips_image_hasalpha")
    FIND(new_from_file, "vips_image_new_from_file") FIND(find_load, "vips_foreign_find_load")
    FIND(thumbnail, "vips_thumbnail") FIND(copy, "vips_copy") FIND(jpegsave_buffer, "vips_jpegsave_buffer")
    FIND(pngsave_buffer, "vips_pngsave_buffer") FIND(webpsave_buffer, "vips_webpsave_buffer")
    FIND(array_double_new, "vips_array_double_new") FIND(area_unref, "vips_area_unref")
    FIND(flatten, "vips_flatten") FIND(resize, "vips_resize")
#undef FIND
    if (vips.init("hoist")) {
        snprintf(loadError, sizeof loadError, "libvips could not start: %s", vips.error_buffer());
        vips.error_clear();
        return;
    }
    // Each image is opened once: no cache of open files or decoded pixels.
    vips.cache_set_max(0);
    started = 0;
}

int hoist_vips_start(void) {
    pthread_once(&once, start);
    return started;
}

char *hoist_vips_error(void) {
    if (started != 0) return strdup(loadError);
    char *text = strdup(vips.error_buffer());
    vips.error_clear();
    return text;
}

void hoist_error_clear(void) {
    if (started == 0) vips.error_clear();
}

void hoist_ref(VipsImage *image) { vips.object_ref(image); }
void hoist_unref(VipsImage *image) { vips.object_unref(image); }
void hoist_free(void *pointer) { free(pointer); }

int hoist_width(VipsImage *image) { return vips.get_width(image); }
int hoist_height(VipsImage *image) { return vips.get_height(image); }

VipsImage *hoist_open(const char *path) { return vips.new_from_file(path, "access", ACCESS_SEQUENTIAL, NULL); }
const char *hoist_loader(const char *path) { return vips.find_load(path); }
int hoist_orientation(VipsImage *image) { return vips.get_orientation(image); }

VipsImage *hoist_thumbnail(const char *path, int width, int height) {
    VipsImage *out = NULL;
    if (vips.thumbnail(path, &out, width, "height", height, "size", SIZE_DOWN, "fail_on", FAIL_ON_ERROR, NULL))
        return NULL;
    return out;
}

VipsImage *hoist_strip_metadata(VipsImage *in) {
    VipsImage *out = NULL;
    if (vips.copy(in, &out, NULL)) return NULL;
    char **fields = vips.get_fields(out);
    for (int i = 0; fields[i]; i++) {
        if (strcmp(fields[i], ICC_NAME) != 0) vips.remove(out, fields[i]);
    }
    vips.strfreev(fields);
    return out;
}

// Buffers libvips allocates are g_malloc'd: handed to Swift, they are copied
// out and freed with g_free here, so hoist_free stays plain free().
static int copied(int status, void **buffer, size_t *length) {
    if (status || !*buffer) return status ? status : -1;
    void *own = malloc(*length ? *length : 1);
    if (!own) {
        vips.free(*buffer);
        return -1;
    }
    memcpy(own, *buffer, *length);
    vips.free(*buffer);
    *buffer = own;
    return 0;
}

int hoist_jpeg(VipsImage *in, int quality, void **buffer, size_t *length) {
    return copied(vips.jpegsave_buffer(in, buffer, length, "Q", quality, "optimize_coding", 1, NULL), buffer, length);
}

int hoist_png(VipsImage *in, void **buffer, size_t *length) {
    return copied(vips.pngsave_buffer(in, buffer, length, NULL), buffer, length);
}

int hoist_webp(VipsImage *in, int quality, void **buffer, size_t *length) {
    return copied(vips.webpsave_buffer(in, buffer, length, "Q", quality, NULL), buffer, length);
}

VipsImage *hoist_flatten(VipsImage *in) {
    VipsImage *out = NULL;
    if (!vips.hasalpha(in)) {
        vips.object_ref(in);
        return in;
    }
    double white[3] = {255, 255, 255};
    void *background = vips.array_double_new(white, 3);
    int failed = vips.flatten(in, &out, "background", background, NULL);
    vips.area_unref(background);
    return failed ? NULL : out;
}

VipsImage *hoist_resize(VipsImage *in, double scale) {
    VipsImage *out = NULL;
    if (vips.resize(in, &out, scale, NULL)) return NULL;
    return out;
}
