import Foundation  // String(format:); a benchmark, not shipped
import FormData
import TerminalUI
import UploadEngine
import UploadPlan

// Render + diff cost of the UI's frames, without a terminal: 1,000 tasks,
// 8 of them sending and moving every frame, one selected with a JSON answer.
// Prints per-frame times; the target is at most 2 ms for a 200×60 frame.

func snapshot(_ id: Int, state: TaskState, sent: Int64, total: Int64, response: UploadResponse? = nil) -> TaskSnapshot {
    let now = ContinuousClock.now
    return TaskSnapshot(
        id: TaskID(id),
        request: UploadRequest(url: "http://127.0.0.1:8080/upload", body: .json([]), label: "scan-\(id) 身份证.jpg"),
        priority: .normal, dependency: nil, state: state,
        progress: UploadProgress(
            attempt: 1, bytesSent: sent, totalBytes: total, bytesPerSecond: 3_500_000, eta: .seconds(7)),
        attempts: 1, response: response, answeredEarly: false, addedAt: now, startedAt: now,
        finishedAt: state.isFinished ? now : nil)
}

func model(width: Int, height: Int) -> AppModel {
    var model = AppModel(
        size: Size(width: width, height: height), target: Target(url: "http://127.0.0.1:8080/upload"),
        startDirectory: "/")
    _ = model.update(
        .staged((1...40).map { StagedFile(path: "/data/scan-\($0) 身份证.jpg", size: 4_000_000) }, problems: []))
    let body = Array(
        #"{"RETCODE":"0000","RETMSG":"成功","data":{"sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","size":4000000,"tags":["id","front"]}}"#
            .utf8)
    let json = try! JSONParser.parse(body)
    let response = UploadResponse(
        status: 200, headers: [], elapsed: .milliseconds(80), body: body, bodyBytesReceived: Int64(body.count),
        content: .json(json))
    for id in 1...1000 {
        let state: TaskState = id <= 200 ? .succeeded : id <= 208 ? .sending : .queued
        _ = model.update(
            .engine(
                .added(
                    snapshot(
                        id, state: state, sent: id <= 200 ? 4_000_000 : 0, total: 4_000_000,
                        response: id <= 200 ? response : nil))))
    }
    model.focus = .tasks
    for _ in 0..<190 { _ = model.update(.key(.down)) }  // the running rows are on screen
    return model
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func measure(width: Int, height: Int, frames: Int) {
    var m = model(width: width, height: height)
    let clock = ContinuousClock()
    var previous: Grid?
    var renderTimes: [Double] = []
    var diffTimes: [Double] = []
    var changedCells = 0
    for frame in 0..<frames {
        for id in 201...208 {
            _ = m.update(
                .engine(.progress(snapshot(id, state: .sending, sent: Int64(frame * 20_000 + id), total: 4_000_000))))
        }
        var grid = Grid(size: m.size)
        let start = clock.now
        Screen.render(m, into: &grid)
        let rendered = clock.now
        let changes = grid.changes(from: previous)
        let diffed = clock.now
        changedCells += changes.reduce(0) { $0 + $1.cells.count }
        previous = grid
        if frame > 0 {  // the first frame is a full one
            renderTimes.append(
                Double((rendered - start).components.attoseconds) / 1e15 + Double((rendered - start).components.seconds)
                    * 1e3)
            diffTimes.append(
                Double((diffed - rendered).components.attoseconds) / 1e15 + Double(
                    (diffed - rendered).components.seconds) * 1e3)
        }
    }
    let total = zip(renderTimes, diffTimes).map { $0 + $1 }
    func f(_ x: Double) -> String { String(Int((x * 1000).rounded())) + " µs" }
    print("\(width)×\(height), 1,000 tasks (8 moving), \(frames) frames:")
    print(
        "  render  mean \(f(renderTimes.reduce(0, +) / Double(renderTimes.count)))  p50 \(f(percentile(renderTimes, 0.5)))  p99 \(f(percentile(renderTimes, 0.99)))"
    )
    print(
        "  diff    mean \(f(diffTimes.reduce(0, +) / Double(diffTimes.count)))  p50 \(f(percentile(diffTimes, 0.5)))  p99 \(f(percentile(diffTimes, 0.99)))"
    )
    print(
        "  frame   mean \(f(total.reduce(0, +) / Double(total.count)))  p99 \(f(percentile(total, 0.99)))   (target ≤ 2000 µs)"
    )
    print("  cells changed per frame: \(changedCells / frames) of \(width * height)")
    print("  at 30 fps: \(String(format: "%.1f", total.reduce(0, +) / Double(total.count) * 30 / 10))% of one core")
}

let frames = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 300 : 300
measure(width: 200, height: 60, frames: frames)
measure(width: 80, height: 24, frames: frames)
