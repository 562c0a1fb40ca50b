import FormData
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// Models and snapshots for view and update tests.
enum Fixtures {
    static let url = "http://127.0.0.1:8080/upload"

    static func model(width: Int = 120, height: Int = 40) -> AppModel {
        AppModel(size: Size(width: width, height: height), target: Target(url: url), startDirectory: "/data")
    }

    static func task(
        _ id: Int, _ name: String, state: TaskState, sent: Int64 = 0, total: Int64? = nil, speed: Double = 0,
        eta: Duration? = nil, response: UploadResponse? = nil, attempts: Int = 1
    ) -> TaskSnapshot {
        let start = ContinuousClock.Instant.now
        return TaskSnapshot(
            id: TaskID(id), request: UploadRequest(url: url, body: .json([]), label: name), priority: .normal,
            dependency: nil, state: state,
            progress: UploadProgress(
                attempt: attempts, bytesSent: sent, totalBytes: total, bytesPerSecond: speed, eta: eta),
            attempts: attempts, response: response, answeredEarly: false, addedAt: start,
            startedAt: state == .queued ? nil : start,
            finishedAt: state.isFinished ? start.advanced(by: .seconds(2)) : nil)
    }

    static func jsonResponse(_ text: String, status: Int = 200) -> UploadResponse {
        let bytes = Array(text.utf8)
        return UploadResponse(
            status: status, headers: [HeaderField("Content-Type", "application/json")], elapsed: .milliseconds(12),
            body: bytes, bodyBytesReceived: Int64(bytes.count), content: .json(try! JSONParser.parse(bytes)))
    }

    /// A model as a user sees it mid-upload: CJK file names, a secret header, three tasks.
    static func busyModel(width: Int = 120, height: Int = 40) -> AppModel {
        var m = model(width: width, height: height)
        _ = m.update(
            .staged(
                [
                    StagedFile(path: "/data/身份证 正面.jpg", size: 180_006, fieldName: "image"),
                    StagedFile(path: "/data/身份证 反面.jpg", size: 180_006, fieldName: "image"),
                    StagedFile(path: "/data/build-artifact.tar.gz", size: 209_715_200),
                ], problems: []))
        m.entries = [
            FormEntry(kind: .field, name: "user_id", value: "42"),
            FormEntry(kind: .header, name: "Authorization", value: "Bearer abc"),
        ]
        m.queue = QueueStatus(isPaused: false, concurrency: 3, running: 2, queued: 0)
        let done = jsonResponse(#"{"RETCODE":"0000","RETMSG":"成功","files":[{"name":"image","size":180006}]}"#)
        for snapshot in [
            task(1, "身份证 正面.jpg", state: .succeeded, sent: 180_330, total: 180_330, response: done),
            task(2, "身份证 反面.jpg", state: .sending, sent: 90_000, total: 180_330, speed: 1_048_576, eta: .seconds(1)),
            task(
                3, "build-artifact.tar.gz", state: .sending, sent: 52_428_800, total: 209_715_500, speed: 41_943_040,
                eta: .seconds(4)),
        ] {
            _ = m.update(.engine(.added(snapshot)))
        }
        m.notice = nil
        return m
    }

    static func render(_ model: AppModel) -> [String] {
        var grid = Grid(size: model.size)
        Screen.render(model, into: &grid)
        return grid.lines().map(trimmed)
    }

    static func trimmed(_ line: String) -> String {
        String(line.reversed().drop(while: { $0 == " " }).reversed())
    }
}
