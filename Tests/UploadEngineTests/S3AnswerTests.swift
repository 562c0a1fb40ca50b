import Foundation
import Testing

@testable import UploadEngine

/// S3's XML answers, as the S3 API reference shows them (namespace and
/// all), decoded into what the multipart driver needs.
@Suite struct S3AnswerTests {
    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func createListAndCompleteAnswers() throws {
        let created = try S3Answer.decode(
            bytes(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
                  <Bucket>example-bucket</Bucket><Key>身份证 正面.jpg</Key>
                  <UploadId>VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA</UploadId>
                </InitiateMultipartUploadResult>
                """), as: .create)
        #expect(created == .created(uploadID: "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA"))

        let page = try S3Answer.decode(
            bytes(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
                  <Bucket>example-bucket</Bucket><Key>example-object</Key><UploadId>XXBsb2</UploadId>
                  <PartNumberMarker>1</PartNumberMarker><NextPartNumberMarker>3</NextPartNumberMarker>
                  <MaxPartsCount>2</MaxPartsCount><IsTruncated>true</IsTruncated>
                  <Part><PartNumber>2</PartNumber><LastModified>2010-11-10T20:48:34.000Z</LastModified>
                    <ETag>"7778aef83f66abc1fa1e8477f296d394"</ETag><Size>10485760</Size></Part>
                  <Part><PartNumber>3</PartNumber><LastModified>2010-11-10T20:48:33.000Z</LastModified>
                    <ETag>"aaaa18db4cc2f85cedef654fccc4a4x8"</ETag><ChecksumCRC32>CURzpQ==</ChecksumCRC32>
                    <Size>10485760</Size></Part>
                </ListPartsResult>
                """), as: .listParts)
        #expect(
            page
                == .parts(
                    [
                        S3Part(number: 2, etag: "\"7778aef83f66abc1fa1e8477f296d394\"", size: 10_485_760),
                        S3Part(
                            number: 3, etag: "\"aaaa18db4cc2f85cedef654fccc4a4x8\"", size: 10_485_760,
                            checksum: "CURzpQ=="),
                    ], nextMarker: 3))
        let empty = try S3Answer.decode(
            bytes("<ListPartsResult><IsTruncated>false</IsTruncated></ListPartsResult>"), as: .listParts)
        #expect(empty == .parts([], nextMarker: nil))

        let done = try S3Answer.decode(
            bytes(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <CompleteMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
                  <Location>http://Example-Bucket.s3.amazonaws.com/Example-Object</Location>
                  <Bucket>Example-Bucket</Bucket><Key>Example-Object</Key>
                  <ETag>"3858f62230ac3c915f300c664312c11f-9"</ETag>
                </CompleteMultipartUploadResult>
                """), as: .complete)
        #expect(
            done
                == .completed(
                    location: "http://Example-Bucket.s3.amazonaws.com/Example-Object",
                    etag: "\"3858f62230ac3c915f300c664312c11f-9\""))
    }

    @Test func errorsAreNamedByCodeAndASkewedClockByHowMuch() throws {
        let denied = try #require(
            S3ServerError(
                status: 403,
                body: bytes(
                    """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>
                    """)))
        #expect(denied.code == "SignatureDoesNotMatch")
        #expect(!denied.isRetryable)
        #expect(denied.description.hasPrefix("SignatureDoesNotMatch: The request signature we calculated"))

        let skewed = try #require(
            S3ServerError(
                status: 403,
                body: bytes(
                    """
                    <Error><Code>RequestTimeTooSkewed</Code><Message>The difference between the request time and the current time is too large.</Message>
                    <RequestTime>20261125T200000Z</RequestTime><ServerTime>2026-11-25T21:00:05Z</ServerTime>
                    <MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds></Error>
                    """)))
        #expect(skewed.skew == 3605)
        #expect(skewed.description.hasSuffix("(the server's clock is 3605 s ahead of this machine's)"))

        let slow = try #require(
            S3ServerError(
                status: 503,
                body: bytes("<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>")))
        #expect(slow.isRetryable)
        #expect(S3ServerError(status: 404, body: []) == nil)
        #expect(S3ServerError(status: 502, body: bytes("<html>Bad Gateway</html>")) == nil)
    }

    @Test func aCompleteThatFailedAfterItsStatusAndABodyThatIsNotS3sAreErrors() {
        #expect(throws: S3ServerError(status: 200, code: "InternalError", message: "We encountered an internal error."))
        {
            try S3Answer.decode(
                bytes("<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>"),
                as: .complete)
        }
        do {
            _ = try S3Answer.decode(bytes("{\"uploadId\": \"json?\"}"), as: .create)
            Issue.record("JSON decoded as XML")
        } catch {
            #expect(error.code == "MalformedAnswer")
            #expect(error.message.hasPrefix("the server's answer to CreateMultipartUpload is not the XML S3 sends"))
        }
    }

    /// What S3XML reads as S3 writes it, and what it refuses as no S3 server would send it.
    @Test func theXMLReaderResolvesWhatXMLAllowsAndRefusesWhatItForbids() throws {
        let answer = try S3XML.parse(
            bytes(
                """
                \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
                <!-- a comment --><!DOCTYPE ListPartsResult>
                <s3:ListPartsResult xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/" a='x>y'>
                  <s3:Key>a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#233;&#x4E2D;</s3:Key>
                  <Owner/><Part><ETag><![CDATA["<etag>"]]></ETag></Part><Part/>
                </s3:ListPartsResult>
                """))
        #expect(answer.name == "ListPartsResult")
        #expect(answer.value("Key") == "a & b <c> \"d\" 'e' é中")
        #expect(answer.all("Part").count == 2)
        #expect(answer["Part"]?.value("ETag") == "\"<etag>\"")
        #expect(answer["Owner"]?.children == [])

        let refused: [(String, String)] = [
            ("<a><b></a></b>", "</a> closes no open element"),
            ("<a><b>", "the answer ends inside <b>"),
            ("<a>&nbsp;</a>", "an unknown entity &nbsp;"),
            ("<a></a>trailing", "content after the root element"),
            ("{\"uploadId\": 1}", "no root element"),
            ("<a x=1></a>", "an attribute value without quotes"),
            ("<a><!-- open</a>", "unterminated comment"),
            ("<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>", "a DOCTYPE with declarations"),
        ]
        for (text, reason) in refused {
            #expect(throws: (any Error).self, "\(text)") { try S3XML.parse(bytes(text)) }
            do {
                _ = try S3XML.parse(bytes(text))
            } catch {
                #expect(error.description.hasPrefix(reason), "\(text): \(error)")
            }
        }
        // Nesting is a loop, not recursion: a hostile depth is refused, not a stack overflow.
        let deep = String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)
        #expect(throws: (any Error).self) { try S3XML.parse(bytes(deep)) }
        let nested = String(repeating: "<a>", count: 60) + "x" + String(repeating: "</a>", count: 60)
        #expect(try S3XML.parse(bytes(nested)).children.count == 1)
    }

    @Test func s3sTimesAreReadInUTC() {
        #expect(S3ServerError.date("2026-11-25T21:00:05Z") == Date(timeIntervalSince1970: 1_795_640_405))
        #expect(S3ServerError.date("20261125T210005Z") == Date(timeIntervalSince1970: 1_795_640_405))
        #expect(S3ServerError.date("2026-11-25T21:00:05.250Z") == Date(timeIntervalSince1970: 1_795_640_405.25))
        for bad in ["2026-11-25 21:00:05Z", "2026-13-25T21:00:05Z", "20261125T210005", "2026-11-25T21:00:05+01:00", ""]
        {
            #expect(S3ServerError.date(bad) == nil, "\(bad)")
        }
    }
}
