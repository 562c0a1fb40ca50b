import Foundation
import Glibc
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
        try await Photos.make(width: 4032, height: 3024, at: front)
        try await Photos.make(width: 4032, height: 3024, at: back)
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
            let lines = try result.stdoutLines.map(jsonObject)
            #expect(lines.map { $0["name"] as? String } == ["1 身份证 正面.jpg", "2 身份证 反面.jpg"])
            // Each line says what its photo became.
            let image = try #require((lines.first?["images"] as? [[String: Any]])?.first, "\(lines)")
            #expect(image["file"] as? String == front && image["sent_as"] as? String == "1 身份证 正面.jpg")
            #expect(image["width"] as? Int == 1200 && image["height"] as? Int == 1600, "\(image)")
            #expect(image["original_width"] as? Int == 3024 && image["quality"] as? Int == 50, "upright: \(image)")
            #expect((image["bytes"] as? Int ?? .max) < (image["original_bytes"] as? Int ?? 0), "\(image)")
            for name in ["1 身份证 正面.jpg", "2 身份证 反面.jpg"] {
                let got = try await Photos.inspect(saved.path + "/" + name)
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
        try await Photos.make(width: 3000, height: 2000, at: big)
        try await Photos.make(width: 1000, height: 800, at: scan, format: "PNG")
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
            #expect(try await Photos.inspect(saved.path + "/scan.jpg")["format"] as? String == "JPEG")
        }
    }

    /// An iPhone's HEIC (made here by libvips's own `vips` tool, with GPS
    /// tags and a colour profile) goes as a JPEG, named .jpg.
    @Test func aHEICPhotoIsConvertedToJPEG() async throws {
        let photos = TemporaryDirectory()
        let jpeg = photos.path + "/source.jpg"
        try await Photos.make(width: 1200, height: 900, at: jpeg)
        let heic = photos.path + "/IMG_0001.HEIC"
        let made = try await run("/usr/bin/env", ["vips", "copy", jpeg, heic])
        try #require(made.status == 0, "\(made.stderr)")
        try await withReceiver { receiver, saved in
            let result = try await hoist([
                "send", receiver.baseURL + "/up", "-F", "photo=@\(heic)", "--image-format", "jpeg", "--image-max-dim",
                "800", "--no-history",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let upload = try decode(result.stdout)
            #expect(upload.files.first?.filename == "IMG_0001.jpg" && upload.files.first?.contentType == "image/jpeg")
            let got = try await Photos.inspect(saved.path + "/IMG_0001.jpg")
            #expect(got["format"] as? String == "JPEG" && got["width"] as? Int == 800 && got["height"] as? Int == 600)
            #expect(got["gps"] as? Bool == false && got["icc"] as? Bool == true, "\(got)")
            // With --image-format keep too: few servers take HEIC, and encoding it is slow.
            let kept = try await hoist([
                "send", receiver.baseURL + "/up", "-T", heic, "--image-max-dim", "400", "--no-history", "--json",
            ])
            #expect(kept.status == 0, "\(kept.stderr)")
            let answer = try jsonObject(try #require(kept.stdoutLines.first))
            let json = try #require(answer["json"] as? [String: Any])
            #expect(json["contentType"] as? String == "image/jpeg", "\(json)")
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
            #expect(tus.status == 1 && tus.stderr.contains("is not an image libvips can read"), "\(tus.stderr)")
            #expect(receiver.requestCount == 0, "no tus upload was created")
        }
    }

    /// libvips is opened only to prepare an image: without it, images fail
    /// clearly and everything else still goes.
    @Test func withoutLibvipsImagesFailClearlyAndOtherUploadsGo() async throws {
        let photos = TemporaryDirectory()
        let jpeg = photos.path + "/id.jpg"
        try await Photos.make(width: 1200, height: 900, at: jpeg)
        try await withReceiver { receiver, _ in
            let missing = ["HOIST_LIBVIPS": "libvips-not-here.so.42"]
            let image = try await hoist(
                ["send", receiver.baseURL + "/up", "-F", "image=@\(jpeg)", "--image-quality", "50", "--no-history"],
                environment: missing)
            #expect(image.status == 1)
            #expect(
                image.stderr.contains("images cannot be prepared: libvips is not installed")
                    && image.stderr.contains("apt-get install libvips42"), "\(image.stderr)")
            #expect(receiver.requestCount == 0)
            let plain = try await hoist(
                ["send", receiver.baseURL + "/up", "-F", "image=@\(jpeg)", "--no-history"], environment: missing)
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(receiver.requestCount == 1)

            // A send with no image to prepare does not load libvips at all.
            let slow = try Subprocess(
                hoistBinary, ["send", receiver.baseURL + "/up?delay=3000", "-F", "a=b", "-s", "--no-history"],
                environment: hoistEnvironment())
            var maps = ""
            for _ in 0..<40 where !maps.contains("libc.so") {
                try await Task.sleep(for: .milliseconds(100))
                maps = (try? String(contentsOfFile: "/proc/\(slow.pid)/maps", encoding: .utf8)) ?? ""
            }
            #expect(maps.contains("libc.so") && !maps.contains("libvips") && !maps.contains("libglib"), "\(maps.count)")
            #expect(await slow.result().status == 0)
        }
    }
}

/// Resumable targets send the prepared copy too: a tus server and an S3
/// bucket, neither written here, hold the photos as Pillow reads them.
@Suite(.serialized) struct ImageResumableTests {
    let photos = TemporaryDirectory()

    func makePhotos() async throws -> (jpeg: String, png: String) {
        let jpeg = photos.path + "/身份证 正面.jpg"
        let png = photos.path + "/scan.png"
        try await Photos.make(width: 3000, height: 2000, at: jpeg)
        try await Photos.make(width: 1200, height: 900, at: png, format: "PNG")
        return (jpeg, png)
    }

    /// Checks a prepared photo's bytes with Pillow: JPEG, upright and within 800 px, no GPS.
    func expectPrepared(_ bytes: [UInt8], width: Int, height: Int, _ comment: Comment) async throws {
        let folder = TemporaryDirectory()
        let got = try await Photos.inspect(folder.file("got.jpg", bytes))
        #expect(got["format"] as? String == "JPEG", comment)
        #expect(got["width"] as? Int == width && got["height"] as? Int == height, "\(comment): \(got)")
        #expect(got["gps"] as? Bool == false && got["makerNote"] as? Bool == false, comment)
    }

    @Test func tusUploadsCarryThePreparedPhotoAndItsNewName() async throws {
        let peer = try await TusPeer.resumableUpload()
        let (jpeg, png) = try await makePhotos()
        let result = try await hoist([
            "send", "--tus", peer.creationURL, "-T", jpeg, "-T", png, "--image-max-dim", "800", "--image-format",
            "jpeg", "--chunk-size", "64K", "--json", "--no-history", "--no-journal",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdoutLines.map(jsonObject)
        #expect(Set(lines.compactMap { $0["name"] as? String }) == ["身份证 正面.jpg", "scan.png"])
        for line in lines {
            let url = try #require(line["upload_url"] as? String)
            let id = String(url.split(separator: "/").last ?? "")
            let stored = try #require(peer.storedFiles { $0.hasSuffix(id) }.values.first, "\(url)")
            let isScan = line["name"] as? String == "scan.png"
            // 3000×2000 stored sideways with orientation 6: upright 2000×3000, then 533×800.
            try await expectPrepared(stored, width: isScan ? 600 : 533, height: isScan ? 800 : 800, "\(line)")
            // The server was told the prepared file's name and type.
            let head = try await run("/usr/bin/env", ["curl", "-sI", "-H", "Tus-Resumable: 1.0.0", url])
            let metadata = head.stdout.split(separator: "\r\n").first {
                $0.lowercased().hasPrefix("upload-metadata:")
            }
            let name = Data((isScan ? "scan.jpg" : "身份证 正面.jpg").utf8).base64EncodedString()
            #expect(metadata?.contains("filename \(name)") == true, "\(metadata ?? "")")
            #expect(metadata?.contains("filetype aW1hZ2UvanBlZw==") == true, "\(metadata ?? "")")
        }
    }

    /// `hoist send ARGUMENTS` with its own state folder (`home`) and
    /// TMPDIR (`scratch`), killed with SIGKILL once `ready`; returns the
    /// environment, for the Hoist that comes after it.
    func sendKilled(
        _ arguments: [String], home: TemporaryDirectory, scratch: TemporaryDirectory, when what: String,
        _ ready: @escaping () -> Bool
    ) async throws -> [String: String] {
        var environment = TusResumeTests.environment(home)
        environment["TMPDIR"] = scratch.path
        let send = try Subprocess(hoistBinary, ["send"] + arguments, environment: hoistEnvironment(environment))
        try await JournalTests.waitUntil(what, timeout: .seconds(60), ready)
        kill(send.pid, SIGKILL)
        #expect(await send.result().status == 128 + SIGKILL, "it finished before the kill")
        return environment
    }

    /// Killed mid-upload, the run's prepared copy is gone with it: `hoist
    /// resume` prepares the photo again and starts a new tus upload, rather
    /// than append a new copy's bytes to the old one (or fail on it).
    @Test func aKilledTusSendOfAPreparedPhotoStartsAnewOnResume() async throws {
        try await withReceiver(configure: { $0.readBytesPerSecond = 1 << 20 }) { receiver, saved in
            let home = TemporaryDirectory()
            let scratch = TemporaryDirectory()
            let photo = photos.path + "/big photo.jpg"
            // Noise at quality 100: a prepared copy of about 3 MB, 3 s at the receiver's pace.
            try await Photos.make(width: 1800, height: 1200, at: photo)
            let environment = try await sendKilled(
                [
                    "--tus", receiver.baseURL + "/files", "-T", photo, "--image-quality", "100", "--chunk-size", "256K",
                    "--json", "-s", "--no-history",
                ], home: home, scratch: scratch, when: "part of the photo on the server"
            ) {
                receiver.tusRequests().filter { $0.method == "PATCH" }.reduce(0) { $0 + $1.keptBytes } >= 300_000
            }
            let before = try await TusResumeTests.listed(home)
            #expect((before["resume_from"] as? Int ?? 0) > 0, "\(before)")

            let resume = try await hoist(["resume", "--json", "-s", "--no-history"], environment: environment)
            #expect(resume.status == 0, "\(resume.stderr)")
            let line = try jsonObject(try #require(resume.stdoutLines.last))
            #expect(line["ok"] as? Bool == true && line["resumed_from"] is NSNull, "\(line)")
            #expect(line["upload_url"] as? String != before["upload_url"] as? String, "a new upload")
            let got = try await Photos.inspect(saved.path + "/big photo.jpg")
            #expect(got["width"] as? Int == 1200 && got["height"] as? Int == 1800, "\(got)")
            #expect(got["gps"] as? Bool == false && (got["quality"] as? Int ?? 0) >= 98, "\(got)")
            // The dead run's folder and the resume's own are both gone.
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
        }
    }

    /// A Hoist killed with a prepared photo on its way leaves the copy
    /// behind; the next Hoist that adopts its journal (the UI here, which
    /// prepares nothing until R) removes it.
    @Test func theCopiesOfAKilledHoistGoWhenItsJournalIsAdopted() async throws {
        try await withReceiver(configure: { $0.readBytesPerSecond = 200_000 }) { receiver, _ in
            let home = TemporaryDirectory()
            let scratch = TemporaryDirectory()
            let photo = photos.path + "/身份证 正面.jpg"
            try await Photos.make(width: 1800, height: 1200, at: photo)
            let copies = {
                ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []).flatMap {
                    (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/" + $0)) ?? []
                }
            }
            _ = try await sendKilled(
                [receiver.baseURL + "/upload", "-F", "image=@\(photo)", "--image-quality", "100", "-s"], home: home,
                scratch: scratch, when: "the prepared copy, on its way"
            ) { !copies().isEmpty && receiver.requestCount > 0 }
            #expect(copies().count == 1, "the dead Hoist's copy is left")

            let tmux = try await Tmux.start(width: 120, height: 40, in: home)
            defer { Task { await tmux.kill() } }
            try await tmux.type("TMPDIR='\(scratch.path)' \(hoistBinary); echo EXIT=$?")
            try await tmux.press("Enter")
            try await tmux.waitFor("the adopted task") { $0.text.contains("1 interrupted upload") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
            try await tmux.press("q")
        }
    }

    @Test func s3ObjectsAreThePreparedPhotosUnderTheirNewNames() async throws {
        let moto = try await MotoPeer.start()
        try await moto.createBucket("ids")
        // Signature checks stay off: with them on, moto refuses non-ASCII keys that botocore signs (PEERS.md).
        let environment = [
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_PROFILE": "",
            "AWS_ENDPOINT_URL": moto.endpoint, "HOME": photos.path,
        ]
        let (jpeg, png) = try await makePhotos()
        let result = try await hoist(
            [
                "send", "s3://ids/2026/", "-T", jpeg, "-T", png, "--image-max-dim", "800", "--image-format", "jpeg",
                "--json", "--no-history", "--no-journal",
            ], environment: environment)
        #expect(result.status == 0, "\(result.stderr)\n\(moto.logTail())")
        for (key, width) in [("2026/身份证 正面.jpg", 533), ("2026/scan.jpg", 600)] {
            let out = try await moto.python(
                """
                import base64
                got = s3.get_object(Bucket="ids", Key=base64.b64decode("\(Data(key.utf8).base64EncodedString())").decode())
                print(json.dumps([got["ContentType"], base64.b64encode(got["Body"].read()).decode()]))
                """)
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String])
            #expect(fields[0] == "image/jpeg", "\(key)")
            try await expectPrepared(
                Array(Data(base64Encoded: fields[1]) ?? Data()), width: width, height: 800, "\(key)")
        }
        let keys = try await moto.python(
            "print(json.dumps(sorted(o['Key'] for o in s3.list_objects_v2(Bucket='ids')['Contents'])))")
        #expect(keys.contains("2026/scan.jpg") && !keys.contains("scan.png"), "\(keys)")
    }
}

/// A profile carries the image settings; the command line's replace them.
@Suite struct ImageProfileTests {
    @Test func aProfilesImageSettingsPrepareThePhotosAndSurviveASave() async throws {
        let config = TemporaryDirectory()
        _ = config.directory("hoist")
        let photo = config.path + "/id.jpg"
        try await Photos.make(width: 2000, height: 1000, at: photo)
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
            let got = try await Photos.inspect(saved.path + "/id.jpg")
            #expect(got["width"] as? Int == 400 && got["height"] as? Int == 800, "\(got)")
            // The command line's image options replace the profile's.
            let wider = try await hoist(
                ["send", "--profile", "idcard", "-F", "image=@\(photo)", "--image-max-dim", "1000", "--no-history"],
                environment: environment)
            #expect(wider.status == 0, "\(wider.stderr)")
            let second = try decode(wider.stdout).files.first?.savedAs ?? ""
            #expect(try await Photos.inspect(saved.path + "/" + second)["height"] as? Int == 1000)
            let bad = try await hoist(
                ["send", "--profile", "idcard", "-F", "image=@\(photo)", "--image-quality", "0"],
                environment: environment)
            #expect(bad.status == 2 && bad.stderr.contains("is not an image quality: give 1 to 100"), "\(bad.stderr)")
        }
    }
}
