import os
import sys

# The lab is run as lab/critpath-lab, which puts lab/ on the path; so do the tests.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
