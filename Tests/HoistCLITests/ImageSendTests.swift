import Foundation
import TestSupport
import Testing

/// `hoist send --image-*`: photos prepared on the way, checked by Pillow on
/// the receiving side.
@Suite struct ImageSendTests {
    /// The seed flow: the front, then the back of an ID card, each at quality
    /// 50 and at most 1600 px, to an API that answers RETCODE.
    @Test func theIDCardFlowSendsPreparedPhotosInOrder() async throws {
        let photos = TemporaryDirectory()
        let scratch = TemporaryDirectory()
        let front = photos.path + "/1 身份证 正面.jpg"
        let back = photos.path + "/2 身份证 反面.jpg"
        try Photos.make(width: 4032, height: 3024, at: front)
        try Photos.make(width: 4032, height: 3024, at: back)
        try await withReceiver { receiver, saved in
            let reply = #"{"RETCODE":"0000","RETMSG":"ok"}"#.addingPercentEncoding(
                withAllowedCharacters: .alphanumerics)!
            let result = try await hoist(
                [
                    "send", receiver.baseURL + "/verify?json=" + reply, "--each", "image=@\(photos.path)/*.jpg",
                    "-F", "user=42", "--after-success", "--expect", "RETCODE=0000", "--image-quality", "50",
                    "--image-max-dim", "1600", "--json", "--no-history",
                ], environment: ["TMPDIR": scratch.path])
            #expect(result.status == 0, "\(result.stderr)")
            let names = try result.stdoutLines.map { try jsonObject($0)["name"] as? String }
            #expect(names == ["1 身份证 正面.jpg", "2 身份证 反面.jpg"])
            for name in ["1 身份证 正面.jpg", "2 身份证 反面.jpg"] {
                let got = try Photos.inspect(saved.path + "/" + name)
                // 4032×3024 stored sideways: upright 3024×4032, fitted into 1600 px.
                #expect(got["width"] as? Int == 1200 && got["height"] as? Int == 1600, "\(got)")
                #expect(got["gps"] as? Bool == false && got["makerNote"] as? Bool == false)
                #expect(got["icc"] as? Bool == true)
                #expect(abs((got["quality"] as? Int ?? 0) - 50) <= 2, "\(got)")
            }
            // The prepared copies went with their tasks.
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
        }
    }

    /// A raw PUT of a photo, fitted under a size; a PNG converted to JPEG keeps its name but the extension.
    @Test func maxBytesAndFormatApplyToRawAndMultipartFiles() async throws {
        let photos = TemporaryDirectory()
        let big = photos.path + "/big.jpg"
        let scan = photos.path + "/scan.png"
        try Photos.make(width: 3000, height: 2000, at: big)
        try Photos.make(width: 1000, height: 800, at: scan, format: "PNG")
        try await withReceiver { receiver, saved in
            let put = try await hoist([
                "send", receiver.baseURL + "/up", "-T", big, "--image-max-bytes", "100K", "--no-history", "--json",
            ])
            #expect(put.status == 0, "\(put.stderr)")
            let answer = try jsonObject(try #require(put.stdoutLines.first))
            let json = try #require(answer["json"] as? [String: Any])
            #expect((json["bodyBytes"] as? Int ?? .max) <= 100 * 1024, "\(json)")
            #expect(json["contentType"] as? String == "image/jpeg")

            let form = try await hoist([
                "send", receiver.baseURL + "/up", "-F", "scan=@\(scan)", "--image-format", "jpeg", "--no-history",
            ])
            #expect(form.status == 0, "\(form.stderr)")
            let upload = try decode(form.stdout)
            #expect(upload.files.first?.filename == "scan.jpg" && upload.files.first?.contentType == "image/jpeg")
            #expect(try Photos.inspect(saved.path + "/scan.jpg")["format"] as? String == "JPEG")
        }
    }

    @Test func aBrokenPhotoIsAClearErrorAndNothingIsSent() async throws {
        let photos = TemporaryDirectory()
        let fake = photos.file("id.jpg", Array("not a jpeg at all".utf8))
        try await withReceiver { receiver, _ in
            let result = try await hoist([
                "send", receiver.baseURL + "/up", "-F", "image=@\(fake)", "--image-quality", "50", "--no-history",
            ])
            #expect(result.status == 1)
            #expect(
                result.stderr.contains("id.jpg is not an image libvips can read (is it really a JPEG?)"),
                "\(result.stderr)")
            #expect(receiver.requestCount == 0, "nothing was sent")
            let tus = try await hoist([
                "send", receiver.baseURL + "/files", "--tus", "-T", fake, "--image-quality", "50", "--no-history",
            ])
            #expect(
                tus.status == 2
                    && tus.stderr.contains("--image-* options: images are prepared for plain uploads; not yet for tus"),
                "\(tus.stderr)")
        }
    }
}

/// A profile carries the image settings; the command line's replace them.
@Suite struct ImageProfileTests {
    @Test func aProfilesImageSettingsPrepareThePhotosAndSurviveASave() async throws {
        let config = TemporaryDirectory()
        _ = config.directory("hoist")
        let photo = config.path + "/id.jpg"
        try Photos.make(width: 2000, height: 1000, at: photo)
        try await withReceiver { receiver, saved in
            config.file(
                "hoist/profiles.toml",
                text: """
                    [idcard]
                    url = "\(receiver.baseURL)/upload"
                    image_quality = 50
                    image_max_dim = 800
                    image_max_bytes = "300K"
                    """)
            let environment = ["XDG_CONFIG_HOME": config.path, "HOME": config.path]
            let sent = try await hoist(
                ["send", "--profile", "idcard", "-F", "image=@\(photo)", "--no-history"], environment: environment)
            #expect(sent.status == 0, "\(sent.stderr)")
            let got = try Photos.inspect(saved.path + "/id.jpg")
            #expect(got["width"] as? Int == 400 && got["height"] as? Int == 800, "\(got)")
            // The command line's image options replace the profile's.
            let wider = try await hoist(
                ["send", "--profile", "idcard", "-F", "image=@\(photo)", "--image-max-dim", "1000", "--no-history"],
                environment: environment)
            #expect(wider.status == 0, "\(wider.stderr)")
            let second = try decode(wider.stdout).files.first?.savedAs ?? ""
            #expect(try Photos.inspect(saved.path + "/" + second)["height"] as? Int == 1000)
            let bad = try await hoist(
                ["send", "--profile", "idcard", "-F", "image=@\(photo)", "--image-quality", "0"],
                environment: environment)
            #expect(bad.status == 2 && bad.stderr.contains("is not an image quality: give 1 to 100"), "\(bad.stderr)")
        }
    }
}
