import Testing

@testable import UploadEngine

/// Inputs the `s3` fuzz target (fuzz/README.md) found to crash, and valid neighbours of them.
@Suite struct FuzzRegressionTests {
    /// FoundationXML's parser trapped on an element name that is not UTF-8 (`<E\xF2ror>`).
    @Test func anAnswerThatIsNotUTF8IsMalformedNotACrash() {
        let body = Array("<E".utf8) + [0xF2] + Array("ror><Code>SlowDown</Code><Message>m</Message></Error>".utf8)
        #expect(S3ServerError(status: 503, body: body) == nil)
        for operation in [S3Operation.create, .listParts, .complete] {
            #expect(
                throws: S3ServerError(
                    status: 200, code: "MalformedAnswer",
                    message: "the server's answer to \(operation.rawValue) is not the XML S3 sends: it is not UTF-8")
            ) { try S3Answer.decode(body, as: operation) }
        }
    }

    /// FoundationXML's parser read a processing instruction with no data through a NULL pointer.
    @Test func anAnswerWithAProcessingInstructionIsMalformedNotACrash() {
        let body = Array(
            "<?a?>\n<InitiateMultipartUploadResult><UploadId>u</UploadId></InitiateMultipartUploadResult>".utf8)
        #expect(S3ServerError(status: 503, body: Array("<?a?><Error><Code>SlowDown</Code></Error>".utf8)) == nil)
        #expect(
            throws: S3ServerError(
                status: 200, code: "MalformedAnswer",
                message: "the server's answer to CreateMultipartUpload is not the XML S3 sends:"
                    + " it holds a processing instruction ('<?')")
        ) { try S3Answer.decode(body, as: .create) }
    }

    /// UTF-8 beyond ASCII, in names and in text, is still read; so is the XML declaration.
    @Test func utf8AnswersAreStillRead() throws {
        let answer =
            "<?xml version=\"1.0\"?>\n<InitiateMultipartUploadResult><Kéy>身份证</Kéy><UploadId>ü1</UploadId></InitiateMultipartUploadResult>"
        let created = try S3Answer.decode(Array(answer.utf8), as: .create)
        #expect(created == .created(uploadID: "ü1"))
        let error = S3ServerError(
            status: 503, body: Array("<Error><Code>SlowDown</Code><Message>é</Message></Error>".utf8))
        #expect(error?.message == "é")
    }
}
