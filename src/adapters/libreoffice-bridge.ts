/**
 * The Python side of a LibreOffice kept running (libreoffice.ts): a UNO client that converts one
 * document per request line on stdin. Written into the resident instance's working folder and run
 * with the Python LibreOffice brings (Debian: /usr/bin/python3 with python3-uno).
 */
export const BRIDGE_PY = `# The bridge to a LibreOffice kept running (libreoffice.ts, resident conversions): connects to the
# soffice instance listening on the pipe named in argv[1] (UNO remote protocol), says "ready", then
# converts one document per line read from stdin, a JSON object {"input": path, "output": path},
# to PDF/A-1b, and answers one line: {"ok": true} or {"error": "..."}, or {"gone": true, ...} and
# ends when LibreOffice is gone (its connection disposed). When stdin closes (the
# service stopped, or died) it ends LibreOffice and itself.
# It runs under the Python that comes with LibreOffice (Debian: /usr/bin/python3 with python3-uno).
import json
import sys
import time

import uno
from com.sun.star.beans import PropertyValue


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()


def connect(pipe, seconds):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + seconds
    while True:
        try:
            remote = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
            return remote.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", remote)
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def convert(desktop, source, target):
    document = desktop.loadComponentFromURL(
        uno.systemPathToFileUrl(source), "_blank", 0, (prop("Hidden", True), prop("ReadOnly", True))
    )
    if document is None:
        raise RuntimeError("LibreOffice could not load the document")
    try:
        # PDF/A-1b, as the one-shot conversion's filter options say (SelectPdfVersion 1).
        data = uno.Any("[]com.sun.star.beans.PropertyValue", (prop("SelectPdfVersion", 1),))
        document.storeToURL(
            uno.systemPathToFileUrl(target), (prop("FilterName", "writer_pdf_Export"), prop("FilterData", data))
        )
    finally:
        document.close(True)


def main():
    desktop = connect(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 60)
    answer({"ready": True})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            job = json.loads(line)
            convert(desktop, job["input"], job["output"])
            answer({"ok": True})
        except Exception as error:  # every failure is an answer; the caller decides
            text = ("%s: %s" % (type(error).__name__, error))[:500]
            if "DisposedException" in text:
                # LibreOffice is gone (killed, crashed): say so and end, so the caller starts afresh.
                answer({"gone": True, "error": text})
                break
            answer({"error": text})
    # stdin closed: the service stopped or died; LibreOffice goes with it.
    try:
        desktop.terminate()
    except Exception:
        pass


if __name__ == "__main__":
    main()
`;
