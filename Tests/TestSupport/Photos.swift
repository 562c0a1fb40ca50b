import Foundation

/// Phone-like test photos made by Pillow, and what Pillow reads back from a
/// prepared one: the other side of Hoist's image preparation, in code no
/// one here wrote.
public enum Photos {
    /// `python3 -c makeScript W H PATH [FORMAT]`: a noisy W×H photo stored
    /// sideways with EXIF orientation 6, GPS position, make, model, maker
    /// note and body serial number, and an sRGB ICC profile.
    public static let makeScript = #"""
        import sys
        from PIL import Image, ImageCms
        w, h, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
        kind = sys.argv[4] if len(sys.argv) > 4 else "JPEG"
        base = Image.linear_gradient("L").resize((w, h))
        noise = Image.effect_noise((w, h), 60)
        img = Image.merge("RGB", (base, noise, base.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
        exif = Image.Exif()
        exif[0x0112] = 6
        exif[0x010F] = "HoistCam"
        exif[0x0110] = "Model X"
        exif[0x8825] = {1: "N", 2: (48.0, 51.0, 29.0), 3: "E", 4: (2.0, 17.0, 40.0)}
        exif[0x8769] = {0x927C: b"maker note: owner Jane Doe", 0xA431: "SN-123456"}
        icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
        if kind == "PNG":
            img.save(path, "PNG", exif=exif.tobytes(), icc_profile=icc)
        else:
            img.save(path, kind, quality=95, exif=exif.tobytes(), icc_profile=icc)
        """#

    /// `python3 -c inspectScript PATH`: one JSON object: format, width,
    /// height, orientation, which private tags are left, whether the ICC
    /// profile is, and the JPEG quality estimated from the quantization tables.
    public static let inspectScript = #"""
        import json, sys
        from PIL import Image
        im = Image.open(sys.argv[1])
        exif = im.getexif()
        sub = exif.get_ifd(0x8769)
        quality = None
        if im.format == "JPEG":
            # libjpeg's tables at quality q; the one whose sum is nearest the file's (order does not matter).
            std = [16,11,10,16,24,40,51,61,12,12,14,19,26,58,60,55,14,13,16,24,40,57,69,56,14,17,22,29,51,87,80,62,
                   18,22,37,56,68,109,103,77,24,35,55,64,81,104,113,92,49,64,78,87,103,121,120,101,72,92,95,98,112,100,103,99]
            def table(q):
                scale = 5000 / q if q < 50 else 200 - 2 * q
                return sum(min(255, max(1, int((v * scale + 50) / 100))) for v in std)
            actual = sum(im.quantization[0])
            quality = min(range(1, 101), key=lambda q: abs(table(q) - actual))
        print(json.dumps({
            "format": im.format, "width": im.width, "height": im.height,
            "orientation": exif.get(0x0112), "gps": bool(exif.get_ifd(0x8825)), "make": exif.get(0x010F),
            "makerNote": 0x927C in sub, "serial": 0xA431 in sub, "icc": bool(im.info.get("icc_profile")),
            "quality": quality,
        }))
        """#

    /// Async, as `inspect`: Pillow takes seconds, and a blocking wait would
    /// hold one of Swift's cooperative threads, which the in-process servers of other tests need.
    public static func make(width: Int, height: Int, at path: String, format: String = "JPEG") async throws {
        let result = try await Subprocess.run(
            "/usr/bin/env", ["python3", "-c", makeScript, "\(width)", "\(height)", path, format],
            timeout: .seconds(120))
        guard result.status == 0 else {
            throw SubprocessError(message: "making \(path): " + String(decoding: result.stderr, as: UTF8.self))
        }
    }

    /// What Pillow reads from the image at `path`.
    public static func inspect(_ path: String) async throws -> [String: Any] {
        let result = try await Subprocess.run(
            "/usr/bin/env", ["python3", "-c", inspectScript, path], timeout: .seconds(60))
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]
        else {
            throw SubprocessError(message: "inspecting \(path): " + String(decoding: result.stderr, as: UTF8.self))
        }
        return object
    }
}
