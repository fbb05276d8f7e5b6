"""What every run maps and starts before it sends anything (issue 18, memory that
grows with use). The HTTP/3 module's share is in test_http3.py."""
import pytest
import subprocess

pytestmark = pytest.mark.alone


def test_the_binary_sets_up_no_standard_streams_at_start(pacer_bin):
    """A translation unit that includes <iostream> makes libstdc++ build std::cin,
    std::cout and the C++ locale before main: about 0.5 MB resident in every run,
    which reads nothing through them (stdin is read with read(2), core/read_fd.h)."""
    imports = subprocess.run(["nm", "-D", "--undefined-only", pacer_bin], capture_output=True, text=True,
                             timeout=30)
    assert imports.returncode == 0 and "fmt" in imports.stdout, imports
    assert "_ZNSt8ios_base4InitC1Ev" not in imports.stdout, "a source file includes <iostream>"
