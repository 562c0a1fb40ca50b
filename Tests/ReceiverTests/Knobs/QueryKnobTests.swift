import Foundation
import Receiver
import TestSupport
import Testing

/// The per-request query knobs.
@Suite struct QueryKnobTests {
    let files = TemporaryDirectory()

    @Test func statusKnobKeepsTheUsualAnswer() async throws {
        let path = files.file("a.txt", Array("abc".utf8))
        try await withReceiver { server in
            let result = try await Curl.run(["-F", "f=@\(path)", server.url + "/upload?status=500"])
            #expect(result.status == 500)
            #expect(try result.upload().file("f")?.size == 3)
            #expect(try await Curl.run(["-d", "a=b", server.url + "/?status=abc"]).status == 400)
        }
    }

    @Test func replyKnobs() async throws {
        try await withReceiver { server in
            let broken = try await Curl.run(["-d", "a=b", server.url + "/?reply=invalid-json"])
            #expect(broken.status == 200)
            #expect(broken.header("Content-Type") == "application/json")
            #expect(broken.text == #"{"broken": "#)

            let text = try await Curl.run(["-d", "a=b", server.url + "/?reply=text"])
            #expect(text.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(text.text == "hello from hoist receiver")
        }
    }

    /// `?reply=verify`, the demo's route: an ID-card verification API's
    /// answer, a failure for a photo named blurry, as curl receives it.
    @Test func verifyKnobAnswersLikeAVerificationAPI() async throws {
        let front = files.file("身份证 正面.jpg", [0xFF, 0xD8, 0xFF])
        let blurry = files.file("selfie blurry.jpg", [0xFF, 0xD8])
        try await withReceiver { server in
            let ok = try await Curl.run(["-F", "image=@\(front)", server.url + "/upload?reply=verify"])
            #expect(ok.status == 200 && ok.header("Content-Type") == "application/json")
            let answer = try JSONSerialization.jsonObject(with: Data(ok.text.utf8)) as? [String: Any]
            #expect(answer?["RETCODE"] as? String == "0000" && answer?["RETMSG"] as? String == "成功", "\(ok.text)")
            let listed = answer?["files"] as? [[String: Any]]
            #expect(listed?.first?["name"] as? String == "身份证 正面.jpg" && listed?.first?["size"] as? Int == 3)
            let refused = try await Curl.run(["-F", "image=@\(blurry)", server.url + "/upload?reply=verify"])
            let no = try JSONSerialization.jsonObject(with: Data(refused.text.utf8)) as? [String: Any]
            #expect(refused.status == 200 && no?["RETCODE"] as? String == "1001", "\(refused.text)")
            #expect(no?["RETMSG"] as? String == "照片模糊，请重新拍摄: selfie blurry.jpg")
        }
    }

    @Test func jsonKnobAnswersExactlyThatDocument() async throws {
        let path = files.file("front.jpg", [0xFF, 0xD8, 0xFF])
        try await withReceiver { server in
            let query = "json=%7B%22RETCODE%22%3A%220001%22%2C%22RETMSG%22%3A%22blurry%20photo%22%7D"
            let result = try await Curl.run(["-F", "image=@\(path)", server.url + "/verify?" + query])
            #expect(result.status == 200)
            #expect(result.header("Content-Type") == "application/json")
            #expect(result.text == #"{"RETCODE":"0001","RETMSG":"blurry photo"}"#)
            #expect(server.savedFiles == ["front.jpg"])
        }
    }

    @Test func earlyAnswerArrivesBeforeTheBodyIsSent() async throws {
        let path = writeLargeFile(files.sub("big.bin"), mebibytes: 20)
        try await withReceiver { server in
            // curl waits for 100-continue and gets the final answer instead; without Expect it is mid-upload.
            for extra in [[], ["-H", "Expect:"]] {
                let result = try await Curl.run(extra + ["-F", "big=@\(path)", server.url + "/upload?early=1"])
                #expect(result.status == 200)
                #expect(result.text == #"{"early":true}"#)
            }

            // A bare client sends 64 KiB of a 20 MB body and reads the whole answer without sending more.
            let head =
                "POST /upload?early=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                + "Content-Length: 20000000\r\n\r\n"
            let reply = await RawSocket.exchange(
                port: server.receiver.port, send: Array(head.utf8) + pseudoRandomBytes(64 << 10)
            ) { received in
                String(decoding: received, as: UTF8.self).hasSuffix(#"{"early":true}"#)
            }
            let text = String(decoding: reply, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(text.contains("Connection: close\r\n"))
            #expect(text.hasSuffix(#"{"early":true}"#))
            #expect(server.savedFiles == [])
        }
    }

    @Test func delayAndStallStillAnswerNormally() async throws {
        let path = files.file("d.txt", Array("delay".utf8))
        try await withReceiver { server in
            let delayed = try await Curl.run(["-F", "f=@\(path)", server.url + "/?delay=100"])
            #expect(try delayed.upload().file("f")?.size == 5)
            let stalled = try await Curl.run(["-H", "Expect:", "-F", "f=@\(path)", server.url + "/?stall=100"])
            #expect(try stalled.upload().file("f")?.size == 5)
            // No request waits longer than a minute.
            let forever = try await Curl.run(["-F", "f=@\(path)", server.url + "/?delay=86400000"])
            #expect(forever.status == 400)
            #expect(forever.text.contains("from 0 to 60000"))
        }
    }

    /// Without `allowsTestKnobs` (`hoist receive` without `--test-knobs`),
    /// a client's query changes nothing: the usual answer, at once.
    @Test func withoutTheFlagTheKnobsAreIgnored() async throws {
        let path = files.file("k.txt", Array("knob".utf8))
        try await withReceiver({ $0.allowsTestKnobs = false }) { server in
            let started = ContinuousClock.now
            let result = try await Curl.run([
                "-F", "f=@\(path)", server.url + "/upload?status=500&json=%7B%7D&delay=40000&reply=text",
            ])
            // Far below the 40 s asked for, with room for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(20))
            #expect(result.status == 200)
            #expect(try result.upload().file("f")?.size == 4)
        }
    }
}
