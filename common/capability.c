#include "config.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/capability.h"

bool capability_effective(int cap)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {{0}};

	if (cap < 0 || CAP_TO_INDEX(cap) >= _LINUX_CAPABILITY_U32S_3 || syscall(SYS_capget, &h, d) < 0)
		return false;
	return d[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
}
