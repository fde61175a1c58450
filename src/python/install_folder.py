"""Prints the folder, relative to the prefix argv[1], from which this Python imports modules
under that prefix, or nothing where it imports from none: cmake --install puts the module
there. Of several, the nearest the prefix: Debian's python3 searches both
/usr/local/lib/python3.X/dist-packages and /usr/lib/python3/dist-packages, and the prefix /usr
gets the second. Exits 1 where this Python is not the X.Y (argv[2]) the module is built for."""
import os
import site
import sys
import sysconfig

prefix, version = os.path.realpath(sys.argv[1]), sys.argv[2]
if "%d.%d" % sys.version_info[:2] != version:
    sys.exit(1)
folders = [sysconfig.get_path("platlib")] + site.getsitepackages()
if site.ENABLE_USER_SITE:
    folders.append(site.getusersitepackages())
under = []
for folder in folders:
    relative = os.path.relpath(os.path.realpath(folder), prefix)
    if relative != os.curdir and relative.split(os.sep)[0] != os.pardir:
        under.append(relative)
if under:
    print(min(under, key=lambda folder: folder.count(os.sep)))
